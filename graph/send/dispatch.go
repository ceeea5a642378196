package send

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// QueuedOutcome is what became of one queued message the pacer handed to
// SendQueued, for the pacer's own rules.
type QueuedOutcome struct {
	// Sent: the provider took it.
	Sent bool
	// Requeued: the provider refused it for a rate limit, so it did not
	// go out and is queued again, due after RetryAfter.
	Requeued   bool
	RetryAfter time.Duration
	// Hold is what a rate-limit refusal holds back (the account, the
	// recipient, or the recipient's marketing messages).
	Hold channels.Hold
}

// OpenedQueued is a queued message read for its call, before the pacer
// marks it called (OpenQueued).
type OpenedQueued struct{ res *reservation }

// OpenQueued reads what a queued message's call needs: the message, its
// outbound form with the account's credentials (creds when the caller
// holds them, the pacer reading them once a minute; nil reads them), links
// and bytes of its files and DKIM key. It answers nil when the message is
// no longer queued. The pacer opens the messages it is about to call, then
// marks them called in one commit and calls each at once (SendOpened): a
// worker killed between the mark and the calls leaves only the messages of
// that moment never called, not those it was still reading.
func (s *Service) OpenQueued(ctx context.Context, claim *repo.QueuedSend, creds *channels.Credentials) (*OpenedQueued, error) {
	a := &auth.Actor{WorkspaceID: claim.WorkspaceID, Livemode: claim.Livemode}
	ob := &channels.Message{}
	if err := json.Unmarshal(claim.Payload, ob); err != nil {
		return nil, fmt.Errorf("send: queued payload: %w", err)
	}
	var res *reservation
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		msg, err := q.Message(ctx, a.Scope(), claim.MessageID)
		if err != nil || msg.Status != "queued" {
			return ignoreGone(err)
		}
		ob.Account.Provider = creds
		if creds == nil && claim.Livemode && credentialed[claim.Channel] && s.Credentials != nil {
			if ob.Account.Provider, err = s.Credentials.Of(ctx, q, claim.WorkspaceID, claim.AccountID); err != nil {
				return err
			}
		}
		for i := range ob.Attachments {
			ob.Attachments[i].URL = s.Files.URL(ob.Attachments[i].ID)
		}
		if ob.Email != nil && claim.Livemode && s.Email != nil {
			e := *ob.Email
			if err := s.Email.Complete(ctx, q, a.Scope(), msg.ConversationID, "", &e); err != nil {
				return err
			}
			ob.Email.DKIM = e.DKIM
		}
		if err := emailFiles(ctx, q, a, ob); err != nil {
			return err
		}
		res = &reservation{actor: a, msg: msg, ob: ob, period: claim.Period, shard: claim.Shard}
		return nil
	})
	if res == nil || err != nil {
		return nil, err
	}
	return &OpenedQueued{res: res}, nil
}

// SendOpened sends a queued message the pacer opened (OpenQueued) and then
// marked called (repo.Queries.MarkCalled, which made it sending): one
// provider call, then the settle. A provider's acceptance is confirmed as
// a synchronous send's (sent, message.sent, its quota unit kept); a
// rate-limit refusal requeues it (nothing went out); an unknown outcome
// leaves it sending for the provider's status or the sweep; any other
// refusal fails it, with message.status and its quota unit given back.
func (s *Service) SendOpened(ctx context.Context, claim *repo.QueuedSend, opened *OpenedQueued) QueuedOutcome {
	res := opened.res
	res.msg.Status = "sending" // as the mark made it
	receipt, callErr := s.callAdapter(ctx, res.ob)
	switch {
	case callErr == nil:
		err := s.settleRetrying(ctx, "confirm", claim.MessageID, true, func(ctx context.Context) error {
			_, err := s.confirm(ctx, res, receipt)
			return err
		})
		if err == nil {
			// The claim stays sending (called): the message says sent.
			s.Events.CommittedSends(ctx)
		}
		return QueuedOutcome{Sent: true}
	case channels.OutcomeUnknown(callErr):
		s.unknown(ctx, res, nil, callErr)
		return QueuedOutcome{Sent: true}
	}
	refusal := channels.AsRefusal(callErr)
	if refusal.Code == apierr.ChannelRateLimited && refusal.RetryAfter <= 0 {
		refusal.RetryAfter = channels.DefaultRetryAfter
	}
	out := QueuedOutcome{RetryAfter: refusal.RetryAfter, Hold: refusal.Hold}
	if refusal.Code == apierr.ChannelRateLimited && refusal.Hold != channels.HoldMarketing {
		slog.Info("send: provider rate limit; queued message queued again", "message_id", claim.MessageID,
			"reason", refusal.Reason, "retry_after", refusal.RetryAfter)
		s.hold(ctx, claim, refusal)
		s.requeue(ctx, claim, refusal.RetryAfter)
		out.Requeued = true
		return out
	}
	s.failQueued(ctx, claim, refusal)
	return out
}

// requeue gives a called message back to the queue, due after wait.
func (s *Service) requeue(ctx context.Context, claim *repo.QueuedSend, wait time.Duration) {
	err := s.settleRetrying(ctx, "requeue", claim.MessageID, false, func(ctx context.Context) error {
		return s.Store.InTx(ctx, func(q repo.Queries) error {
			_, err := q.RequeueCalled(ctx, claim.WorkspaceID, claim.MessageID, s.Clock.Now().Add(wait))
			return err
		})
	})
	if err != nil {
		slog.Error("send: queued message not queued again; the sweep settles it", "message_id", claim.MessageID, "err", err)
	}
}

// hold records a rate limit's hold, so that synchronous sends and every
// pacer see it (provider_holds).
func (s *Service) hold(ctx context.Context, claim *repo.QueuedSend, refusal *channels.Refusal) {
	who := ""
	switch refusal.Hold {
	case channels.HoldRecipient:
		who = claim.Recipient
	case channels.HoldMarketing:
		who = repo.MarketingHold(claim.Recipient)
	}
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		return q.SetHold(ctx, claim.WorkspaceID, claim.AccountID, who, s.Clock.Now().Add(refusal.RetryAfter))
	})
	if err != nil {
		slog.Warn("send: rate-limit hold not stored", "account", claim.AccountID, "err", err)
	}
}

// failQueued fails a queued message the provider refused: failed with the
// refusal in delivery.error, its quota unit given back, what the refusal
// says about the account or the customer acted on, and message.status.
func (s *Service) failQueued(ctx context.Context, claim *repo.QueuedSend, refusal *channels.Refusal) {
	slog.Info("send: provider refused a queued message", "message_id", claim.MessageID, "code", refusal.Code, "reason", refusal.Reason)
	if refusal.Hold == channels.HoldMarketing {
		s.hold(ctx, claim, refusal)
	}
	changed := false
	err := s.settleRetrying(ctx, "fail", claim.MessageID, true, func(ctx context.Context) error {
		return s.Store.InTx(ctx, func(q repo.Queries) error {
			var err error
			changed, err = s.failQueuedIn(ctx, q, claim, refusal)
			return err
		})
	})
	if err != nil {
		slog.Error("send: queued message not failed; the sweep settles it", "message_id", claim.MessageID, "err", err)
		return
	}
	if changed {
		s.Events.CommittedSends(ctx)
	}
	if refusal.RefreshTemplates && s.Refresher != nil {
		if err := s.Refresher.RefreshTemplates(ctx, claim.WorkspaceID, claim.AccountID); err != nil {
			slog.Warn("send: template refresh not queued", "account", claim.AccountID, "err", err)
		}
	}
}

// failQueuedIn is failQueued's transaction; false when the message was
// settled otherwise.
func (s *Service) failQueuedIn(ctx context.Context, q repo.Queries, claim *repo.QueuedSend, refusal *channels.Refusal) (bool, error) {
	scope := repo.Scope{WorkspaceID: claim.WorkspaceID, Livemode: claim.Livemode}
	conv, m, err := q.LockConversationThenMessage(ctx, scope, claim.MessageID)
	if err != nil || m.Status != "sending" {
		return false, ignoreGone(err)
	}
	at := model.NewTimestamp(s.Clock.Now())
	code := string(refusal.Code)
	if refusal.Code == apierr.ChannelUnavailable {
		code = "provider_error"
	}
	m.Status = "failed"
	if m.Delivery, err = json.Marshal(model.Delivery{FailedAt: &at, Error: &model.DeliveryError{Code: code, Message: refusal.Reason}}); err != nil {
		return false, err
	}
	if ok, err := q.ConfirmMessage(ctx, m); err != nil || !ok {
		return false, err
	}
	if claim.Period != "" {
		if err := q.UncountMessage(ctx, claim.WorkspaceID, claim.Livemode, claim.Period, claim.Shard); err != nil {
			return false, err
		}
	}
	if refusal.NeedsReauth {
		if err := q.NeedsReauth(ctx, claim.WorkspaceID, claim.AccountID, refusal.Reason, s.Clock.Now()); err != nil {
			return false, err
		}
	}
	if refusal.MarketingOptOut {
		if _, err := contact.SetOptOut(ctx, q, s.Events, scope, contact.OptOut{Channel: "whatsapp", Kind: contact.Marketing,
			Stop: true, Address: claim.Recipient}, s.Clock.Now()); err != nil {
			return false, err
		}
	}
	if err := q.SettleQueued(ctx, claim.MessageID, "failed"); err != nil {
		return false, err
	}
	return true, s.recordStatus(ctx, q, scope, conv, m)
}
