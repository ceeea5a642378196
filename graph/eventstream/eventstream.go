// Package eventstream is GET /v1/events/stream: the events of a
// key's workspace and mode, read from the same outbox that feeds webhooks,
// in an order that loses nothing. An event is emitted once the transaction
// that recorded it is older than every running transaction, in (xid, seq)
// order (see repo.EventsForStream), so an event that commits late is never
// behind the cursor. A client resumes with Last-Event-ID within retention.
package eventstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Types are the event types a stream may ask for.
var Types = []string{event.MessageReceived, event.MessageSent, event.MessageStatus, event.ConversationCreated,
	event.ConversationUpdated, event.ContactCreated, event.ContactUpdated, event.ContactDeleted,
	event.ConversationDeleted}

// Store reads the outbox; repo.Store is one.
type Store interface {
	StreamHorizon(ctx context.Context) (uint64, error)
	EventStreamPosition(ctx context.Context, s repo.Scope, id string) (repo.StreamCursor, time.Time, error)
	EventsForStream(ctx context.Context, s repo.Scope, after repo.StreamCursor, horizon uint64, f repo.StreamFilter, limit int) ([]repo.StreamEvent, error)
}

// Service opens streams.
type Service struct {
	Store Store
	// Expired says an event recorded at t is past retention
	// (MSGSVC_EVENT_RETENTION): its id cannot be resumed from. nil keeps
	// everything.
	Expired func(t time.Time) bool
	// Poll is how often an idle stream looks for new events.
	Poll time.Duration
	// Batch is how many events one read takes.
	Batch int
}

// DefaultPoll is how often an idle stream looks for new events.
const DefaultPoll = 300 * time.Millisecond

// Stream is one client's place in the outbox.
type Stream struct {
	svc    *Service
	scope  repo.Scope
	filter repo.StreamFilter
	cursor repo.StreamCursor
	// drained is a horizon below which the stream has read every event:
	// while the horizon stays there, there is nothing new to read.
	drained uint64
}

// ParseTypes reads the events query parameter: comma-separated event
// types, "" or "*" for all.
func ParseTypes(v string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(v, ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "" || t == "*":
			if t == "*" {
				return nil, nil
			}
		case !slices.Contains(Types, t):
			return nil, apierr.New(apierr.InvalidRequest, "events: %q is not an event type (one of %s, or *).", t, strings.Join(Types, ", "))
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

// Open starts a stream for the caller: after lastEventID when given, else
// from now on.
func (s *Service) Open(ctx context.Context, a *auth.Actor, lastEventID string, types []string) (*Stream, error) {
	st := &Stream{svc: s, scope: a.Scope(),
		filter: repo.StreamFilter{Channels: a.Channels, WebsiteIDs: a.WebsiteIDs, Types: types}}
	var err error
	if lastEventID == "" {
		if st.cursor.XID, err = s.Store.StreamHorizon(ctx); err != nil {
			return nil, fmt.Errorf("eventstream: start: %w", err)
		}
		return st, nil
	}
	cursor, at, err := s.Store.EventStreamPosition(ctx, st.scope, lastEventID)
	switch {
	case errors.Is(err, repo.ErrNotFound):
		return nil, apierr.New(apierr.EventNotFound, "Last-Event-ID %q is no event of this key's workspace and mode.", lastEventID)
	case err != nil:
		return nil, fmt.Errorf("eventstream: resume: %w", err)
	case s.Expired != nil && s.Expired(at):
		return nil, apierr.New(apierr.EventExpired, "Last-Event-ID %q is past the retention period; reconnect without it.", lastEventID)
	}
	st.cursor = cursor
	return st, nil
}

// Next waits for the next events and returns them in order, advancing the
// stream; it returns ctx's error once ctx ends, and (nil, nil) when idle
// beyond maxWait so the caller can write a keep-alive.
func (st *Stream) Next(ctx context.Context, maxWait time.Duration) ([]repo.StreamEvent, error) {
	poll, batch := st.svc.Poll, st.svc.Batch
	if poll <= 0 {
		poll = DefaultPoll
	}
	if batch <= 0 {
		batch = 100
	}
	deadline := time.Now().Add(maxWait)
	for {
		evs, err := st.read(ctx, batch)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("eventstream: read: %w", err)
		}
		if len(evs) > 0 {
			st.cursor = evs[len(evs)-1].Cursor
			return evs, nil
		}
		if !time.Now().Before(deadline) {
			return nil, nil
		}
		t := time.NewTimer(min(poll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// read takes the horizon, then the events below it, in two statements: the
// second one's snapshot sees every transaction the first found ended. The
// events below a horizon are final, so once a read returns fewer than a
// batch the stream reads again only when the horizon moves.
func (st *Stream) read(ctx context.Context, batch int) ([]repo.StreamEvent, error) {
	horizon, err := st.svc.Store.StreamHorizon(ctx)
	if err != nil || horizon == st.drained {
		return nil, err
	}
	evs, err := st.svc.Store.EventsForStream(ctx, st.scope, st.cursor, horizon, st.filter, batch)
	if err == nil && len(evs) < batch {
		st.drained = horizon
	}
	return evs, err
}
