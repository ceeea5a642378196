// Package event records the events a change announces, in the transaction of
// the change itself (an outbox): they commit together or not at all.
package event

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/graph/clock"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Event types (decisions 7).
const (
	MessageReceived     = "message.received"
	MessageSent         = "message.sent"
	MessageStatus       = "message.status"
	ConversationCreated = "conversation.created"
	ConversationUpdated = "conversation.updated"
	ContactCreated      = "contact.created"
	ContactUpdated      = "contact.updated"
	ContactDeleted      = "contact.deleted"
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
	EventsRecorded(ctx context.Context) error
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
func (r Recorder) Committed(ctx context.Context) {
	if r.Listener != nil {
		r.Listener.Committed(ctx)
	}
	if r.Queue == nil {
		return
	}
	if err := r.Queue.EventsRecorded(ctx); err != nil {
		slog.Warn("event: announce fan-out; the sweep will catch up", "err", err)
	}
}

// Record writes an event in the caller's transaction, so the change and its
// announcement commit together or not at all.
func (r Recorder) Record(ctx context.Context, q Inserter, s repo.Scope, typ string, conv *model.Conversation, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("event: %s data: %w", typ, err)
	}
	now := r.Clock.Now()
	e := &repo.Event{
		ID: repo.NewID("evt_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode, Type: typ, CreatedAt: now,
	}
	if conv != nil {
		e.Channel, e.WebsiteID, e.ConversationID = &conv.Channel, &conv.WebsiteID, &conv.ID
	}
	envelope := model.Event{
		ID: e.ID, Type: typ, CreatedAt: model.NewTimestamp(now), Channel: e.Channel,
		WebsiteID: e.WebsiteID, Livemode: s.Livemode, Data: raw,
	}
	if e.Envelope, err = json.Marshal(envelope); err != nil {
		return fmt.Errorf("event: %s envelope: %w", typ, err)
	}
	if err := q.InsertEvent(ctx, e); err != nil {
		return fmt.Errorf("event: insert %s: %w", typ, err)
	}
	if msg, ok := data.(*model.Message); ok && typ == MessageReceived && OwesAIReply(conv, msg) {
		// Every inbound path records message.received: the AI's work is
		// queued here, in the same transaction, so no channel forgets it.
		w := &repo.AIWork{MessageID: msg.ID, WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
			ConversationID: conv.ID, CreatedAt: now}
		if err := q.InsertAIWork(ctx, w); err != nil {
			return fmt.Errorf("event: queue AI work: %w", err)
		}
	}
	return nil
}

// OwesAIReply says whether the AI answers an inbound message (live.md 8):
// only in an open conversation in mode ai (so never in External mode, where
// the account's processing is off), and never to mail marked auto-submitted.
func OwesAIReply(conv *model.Conversation, msg *model.Message) bool {
	return conv != nil && conv.Mode == "ai" && conv.Status == "open" && msg.Direction == "inbound" && !msg.AutoSubmitted
}
