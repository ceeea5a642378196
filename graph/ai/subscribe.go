package ai

import (
	"context"
	"encoding/json"
	"log/slog"
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
func (r *Service) ConversationEvents(ctx context.Context, conversationID string) (<-chan *model.Event, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	after, err := r.Store.LastEventSeq(ctx)
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
			rows, err := r.Store.ConversationEventsAfter(ctx, a.WorkspaceID, a.Livemode, conversationID, after, 100)
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
