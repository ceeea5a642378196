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
func (s *Service) SweepSending(ctx context.Context) error {
	stale, err := s.Store.StaleSendingMessages(ctx, s.Clock.Now().Add(-s.unknownAfter()), 100)
	for _, m := range stale {
		if err := s.giveUp(ctx, m.WorkspaceID, m.ID); err != nil {
			return err
		}
	}
	return err
}

// giveUp marks one sending message failed with provider_unknown.
func (s *Service) giveUp(ctx context.Context, workspaceID, messageID string) error {
	changed := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		// The conversation, then the message: the order every writer of
		// its events locks in (graph/metahook/callback.go).
		scope := repo.Scope{WorkspaceID: workspaceID, Livemode: true}
		conv, m, err := q.LockConversationThenMessage(ctx, scope, messageID)
		if errors.Is(err, repo.ErrNotFound) {
			scope.Livemode = false
			conv, m, err = q.LockConversationThenMessage(ctx, scope, messageID)
		}
		if err != nil || m.Status != "sending" {
			return ignoreGone(err)
		}
		at := model.NewTimestamp(s.Clock.Now())
		m.Status = "failed"
		if m.Delivery, err = json.Marshal(model.Delivery{FailedAt: &at, Error: &model.DeliveryError{Code: "provider_unknown",
			Message: "No answer or status of the provider said whether it took the message; it is not sent again."}}); err != nil {
			return err
		}
		if err := AnnounceCreations(ctx, q, s.Events, scope, m.ID); err != nil {
			return err
		}
		if _, err := q.ConfirmMessage(ctx, m); err != nil {
			return err
		}
		changed = true
		return s.recordStatus(ctx, q, scope, conv, m)
	})
	if err == nil && changed {
		s.Events.CommittedSends(ctx)
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
func (s *Service) recordStatus(ctx context.Context, q repo.Queries, scope repo.Scope, conv *repo.Conversation, m *repo.Message) error {
	out := view.Message(m)
	s.Files.SignAttachments(out)
	return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), out)
}
