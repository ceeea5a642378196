// Package event records the events a change announces, in the transaction of
// the change itself (an outbox): they commit together or not at all.
package event

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Event types (docs/api.md, Events).
const (
	MessageReceived     = "message.received"
	MessageSent         = "message.sent"
	MessageStatus       = "message.status"
	ConversationCreated = "conversation.created"
	ConversationUpdated = "conversation.updated"
	ContactCreated      = "contact.created"
	ContactUpdated      = "contact.updated"
	ContactDeleted      = "contact.deleted"
	// ConversationDeleted carries ids only; it is not filed under the
	// conversation (events.conversation_id), whose events go with it.
	ConversationDeleted = "conversation.deleted"
)

// ConversationUpdate is the data of conversation.updated: the conversation
// and the names of the fields that changed.
type ConversationUpdate struct {
	*model.Conversation
	Changed []string `json:"changed"`
}

// ContactUpdate is the data of contact.updated.
type ContactUpdate struct {
	*model.Contact
	Changed []string `json:"changed"`
}

// Inserter writes an event row and, for a message the AI must answer, its
// AI work row; a transaction's repo.Queries is one.
type Inserter interface {
	InsertEvent(ctx context.Context, e *repo.Event) error
	InsertAIWork(ctx context.Context, w *repo.AIWork) error
}

// Announcer tells the job queue that new events wait to be fanned out.
type Announcer interface {
	// EventsRecorded asks for the fan-out and, as the commit may owe the
	// AI work or free an agent, for an AI dispatch pass.
	EventsRecorded(ctx context.Context) error
	// FanOutDue asks for the fan-out only.
	FanOutDue(ctx context.Context) error
}

// Listener hears of every commit that recorded events: the widget hubs'
// wake-up (package widget).
type Listener interface {
	Committed(ctx context.Context)
}

// Recorder writes events with the time of its clock, and announces them
// once committed.
type Recorder struct {
	Clock clock.Clock
	// Queue is nil when nothing fans out (seeding, some tests).
	Queue Announcer
	// Listener, when set, is told of every commit too.
	Listener Listener
}

// Committed tells the job queue about new events. A lost notice is caught up
// by the periodic sweep, so its failure is logged, not returned.
func (r Recorder) Committed(ctx context.Context) { r.committed(ctx, true) }

// CommittedSends is Committed for a commit of the send pipeline, whose
// events are of outbound messages (sent, settled) and of the contact and
// conversation a send created: none owes the AI an answer (only an inbound
// message does, queueAIWork) or frees an agent, so the job queue is asked
// for the fan-out alone.
func (r Recorder) CommittedSends(ctx context.Context) { r.committed(ctx, false) }

func (r Recorder) committed(ctx context.Context, dispatch bool) {
	if r.Listener != nil {
		r.Listener.Committed(ctx)
	}
	if r.Queue == nil {
		return
	}
	announce := r.Queue.FanOutDue
	if dispatch {
		announce = r.Queue.EventsRecorded
	}
	if err := announce(ctx); err != nil {
		slog.Warn("event: announce fan-out; the sweep will catch up", "err", err)
	}
}

// Record writes an event in the caller's transaction, so the change and its
// announcement commit together or not at all.
func (r Recorder) Record(ctx context.Context, q Inserter, s repo.Scope, typ string, conv *model.Conversation, data any) error {
	p := Pending{Scope: s, Type: typ, Conv: conv, Data: data}
	e, err := build(p, r.Clock.Now())
	if err != nil {
		return err
	}
	if err := q.InsertEvent(ctx, e); err != nil {
		return fmt.Errorf("event: insert %s: %w", typ, err)
	}
	return queueAIWork(ctx, q, p, e.CreatedAt)
}

// Pending is an event RecordAll writes: what Record takes.
type Pending struct {
	Scope repo.Scope
	Type  string
	Conv  *model.Conversation
	Data  any
}

// BatchInserter writes many event rows in one statement, and what an
// Inserter writes; a transaction's repo.Queries is one.
type BatchInserter interface {
	Inserter
	InsertEvents(ctx context.Context, es []*repo.Event) error
}

// RecordAll writes events as Record does, each its own, in one statement
// and in the order given, so their seqs follow it; they share one time.
func (r Recorder) RecordAll(ctx context.Context, q BatchInserter, events []Pending) error {
	now := r.Clock.Now()
	rows := make([]*repo.Event, len(events))
	for i, p := range events {
		var err error
		if rows[i], err = build(p, now); err != nil {
			return err
		}
	}
	if err := q.InsertEvents(ctx, rows); err != nil {
		return fmt.Errorf("event: insert %d events: %w", len(rows), err)
	}
	for _, p := range events {
		if err := queueAIWork(ctx, q, p, now); err != nil {
			return err
		}
	}
	return nil
}

// build makes the row of an event recorded at now, with its envelope.
func build(p Pending, now time.Time) (*repo.Event, error) {
	raw, err := json.Marshal(p.Data)
	if err != nil {
		return nil, fmt.Errorf("event: %s data: %w", p.Type, err)
	}
	e := &repo.Event{
		ID: repo.NewID("evt_", now), WorkspaceID: p.Scope.WorkspaceID, Livemode: p.Scope.Livemode, Type: p.Type, CreatedAt: now,
	}
	if p.Conv != nil {
		e.Channel, e.WebsiteID, e.ConversationID = &p.Conv.Channel, &p.Conv.WebsiteID, &p.Conv.ID
		if p.Type == ConversationDeleted {
			e.ConversationID = nil
		}
	}
	envelope := model.Event{
		ID: e.ID, Type: p.Type, CreatedAt: model.NewTimestamp(now), Channel: e.Channel,
		WebsiteID: e.WebsiteID, Livemode: p.Scope.Livemode, Data: raw,
	}
	if e.Envelope, err = json.Marshal(envelope); err != nil {
		return nil, fmt.Errorf("event: %s envelope: %w", p.Type, err)
	}
	return e, nil
}

// queueAIWork queues the AI's answer to a message.received it owes one.
// Every inbound path records message.received: the AI's work is queued
// here, in the same transaction, so no channel forgets it.
func queueAIWork(ctx context.Context, q Inserter, p Pending, now time.Time) error {
	msg, ok := p.Data.(*model.Message)
	if !ok || p.Type != MessageReceived || !OwesAIReply(p.Conv, msg) {
		return nil
	}
	w := &repo.AIWork{MessageID: msg.ID, WorkspaceID: p.Scope.WorkspaceID, Livemode: p.Scope.Livemode,
		ConversationID: p.Conv.ID, CreatedAt: now}
	if err := q.InsertAIWork(ctx, w); err != nil {
		return fmt.Errorf("event: queue AI work: %w", err)
	}
	return nil
}

// OwesAIReply says whether the AI answers an inbound message:
// only in an open conversation in mode ai (so never in External mode, where
// the account's processing is off), and never to mail marked auto-submitted.
func OwesAIReply(conv *model.Conversation, msg *model.Message) bool {
	return conv != nil && conv.Mode == "ai" && conv.Status == "open" && msg.Direction == "inbound" && !msg.AutoSubmitted
}
