package send

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// SweepSending fails messages still sending UnknownAfter after their
// reserve: their provider call got no answer, or the process making it
// died, and no status of the provider named them since. Their outcome is
// unknown, so they become failed with provider_unknown and are never sent
// again; a status that names them later still settles them forward.
func (r *Service) SweepSending(ctx context.Context) error {
	stale, err := r.Store.StaleSendingMessages(ctx, r.Clock.Now().Add(-r.unknownAfter()), 100)
	for _, m := range stale {
		if err := r.giveUp(ctx, m.WorkspaceID, m.ID); err != nil {
			return err
		}
	}
	return err
}

// giveUp marks one sending message failed with provider_unknown.
func (r *Service) giveUp(ctx context.Context, workspaceID, messageID string) error {
	changed := false
	err := r.Store.InTx(ctx, func(q repo.Queries) error {
		// The conversation, then the message: the order every writer of
		// its events locks in (graph/metahook/callback.go).
		s := repo.Scope{WorkspaceID: workspaceID, Livemode: true}
		conv, m, err := q.LockConversationThenMessage(ctx, s, messageID)
		if errors.Is(err, repo.ErrNotFound) {
			s.Livemode = false
			conv, m, err = q.LockConversationThenMessage(ctx, s, messageID)
		}
		if err != nil || m.Status != "sending" {
			return ignoreGone(err)
		}
		at := model.NewTimestamp(r.Clock.Now())
		m.Status = "failed"
		if m.Delivery, err = json.Marshal(model.Delivery{FailedAt: &at, Error: &model.DeliveryError{Code: "provider_unknown",
			Message: "No answer or status of the provider said whether it took the message; it is not sent again."}}); err != nil {
			return err
		}
		if err := AnnounceCreations(ctx, q, r.Events, s, m.ID); err != nil {
			return err
		}
		if _, err := q.ConfirmMessage(ctx, m); err != nil {
			return err
		}
		changed = true
		return r.recordStatus(ctx, q, s, conv, m)
	})
	if err == nil && changed {
		r.Events.Committed(ctx)
	}
	return err
}

// ignoreGone treats a message that no longer exists as settled.
func ignoreGone(err error) error {
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	return err
}

// recordStatus records message.status for a message whose status changed.
func (r *Service) recordStatus(ctx context.Context, q repo.Queries, s repo.Scope, conv *repo.Conversation, m *repo.Message) error {
	out := view.Message(m)
	r.Files.SignAttachments(out)
	return r.Events.Record(ctx, q, s, event.MessageStatus, view.Conversation(conv), out)
}
