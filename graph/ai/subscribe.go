package ai

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
)

// pollEvery is how often a subscription reads new events. Postgres holds
// the events, so a dashboard sees what any process of the service records.
const pollEvery = 200 * time.Millisecond

// ConversationEvents streams the caller's conversation.* and message.*
// events recorded from now on, oldest first, until ctx ends; conversationID
// ("" for all) narrows them to one conversation.
func (s *Service) ConversationEvents(ctx context.Context, conversationID string) (<-chan *model.Event, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	after, err := s.Store.LastEventSeq(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan *model.Event, 16)
	go func() {
		defer close(out)
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if s.seq.nothingAfter(ctx, s.Store, after) {
				continue
			}
			rows, err := s.Store.ConversationEventsAfter(ctx, a.WorkspaceID, a.Livemode, conversationID, after, 100)
			if err != nil {
				if ctx.Err() == nil {
					slog.Warn("ai: conversation events", "err", err)
				}
				continue
			}
			for _, row := range rows {
				after = row.Seq
				var e model.Event
				if err := json.Unmarshal(row.Envelope, &e); err != nil {
					slog.Warn("ai: event envelope does not decode", "event_id", row.ID, "err", err)
					continue
				}
				select {
				case out <- &e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// lastSeq shares one read of the newest event's seq among the process's
// subscriptions, at most one per pollEvery/2: an idle subscription reads
// nothing else, so hundreds of idle dashboards cost a few reads a second
// in all, not one each per tick.
type lastSeq struct {
	mu    sync.Mutex
	at    time.Time
	value int64
}

// nothingAfter says whether no event newer than after was recorded (as of
// a read at most pollEvery/2 old); on a failed read it says false, and
// the subscription's own read reports the failure.
func (l *lastSeq) nothingAfter(ctx context.Context, store AdminStore, after int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Wall time, not the service's clock: this bounds how often Postgres is
	// asked, and a test's frozen clock must not freeze it.
	if now := time.Now(); now.Sub(l.at) >= pollEvery/2 {
		v, err := store.LastEventSeq(ctx)
		if err != nil {
			return false
		}
		l.value, l.at = v, now
	}
	return l.value <= after
}

// TypingFeed hears the typing notices of website visitors from every serve
// process until ctx ends; widget.Publish is one.
type TypingFeed interface {
	VisitorTyping(ctx context.Context) (<-chan TypingNotice, error)
}

// VisitorTyping streams the typing notices of the caller's website
// visitors (live data only: sandbox chats have no widget) until ctx ends;
// conversationID ("" for all) narrows them to one chat.
func (s *Service) VisitorTyping(ctx context.Context, conversationID string) (<-chan *model.VisitorTyping, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var in <-chan TypingNotice
	if a.Livemode && s.Visitors != nil {
		if in, err = s.Visitors.VisitorTyping(ctx); err != nil {
			return nil, err
		}
	}
	out := make(chan *model.VisitorTyping, 16)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case n, ok := <-in:
				if !ok {
					return
				}
				if !typingFor(n, a.WorkspaceID, conversationID) {
					continue
				}
				select {
				case out <- &model.VisitorTyping{ConversationID: n.ConversationID, ContactID: n.ContactID,
					WebsiteID: n.WebsiteID, At: model.NewTimestamp(s.Clock.Now())}:
				default: // a dashboard too slow for typing misses some
				}
			}
		}
	}()
	return out, nil
}

// typingFor says whether a visitor's notice is one a subscriber of a
// workspace (and, when set, one conversation) sees: a visitor with no open
// chat has nothing to show.
func typingFor(n TypingNotice, workspaceID, conversationID string) bool {
	return n.WorkspaceID == workspaceID && n.ConversationID != "" &&
		(conversationID == "" || n.ConversationID == conversationID)
}
