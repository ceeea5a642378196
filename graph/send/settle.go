package send

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// settledByStatus answers a late provider answer for a message a status
// settled first: the sweep gave it up as provider_unknown, then a status of
// one of the answer's ids named it by biz_opaque_callback_data
// (graph/metahook) and stored that id. The answer's other ids are stored
// too; the message is answered as it is now, with no event (the settle
// recorded message.status). nil when no id of the answer is the message's.
func (s *Service) settledByStatus(ctx context.Context, q repo.Queries, msg *repo.Message, receipt *channels.Receipt, sent *model.Message) (*model.Message, error) {
	mine := false
	for _, id := range receipt.ProviderIDs {
		part, err := q.ProviderMessageOf(ctx, msg.WorkspaceID, msg.Channel, id)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, err
		}
		mine = mine || (err == nil && part.MessageID == msg.ID)
	}
	if !mine {
		return nil, nil
	}
	for i, id := range receipt.ProviderIDs {
		if _, err := q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: msg.Channel,
			ProviderID: id, MessageID: msg.ID, Part: i, Status: "sent"}); err != nil {
			return nil, err
		}
	}
	cur, err := q.LockMessage(ctx, msg.WorkspaceID, msg.Livemode, msg.ID)
	if err != nil {
		return nil, err
	}
	slog.Warn("send: the provider answered after a status settled the message", "message_id", msg.ID, "status", cur.Status)
	out := view.Message(cur)
	s.Files.SignAttachments(sent, out)
	return out, nil
}

// failInPart marks a message the provider took only in part as failed,
// with the refusal of the part it did not take.
func failInPart(msg *repo.Message, d model.Delivery, refusal *channels.Refusal, at model.Timestamp) error {
	slog.Info("send: provider took the message in part", "message_id", msg.ID, "channel", msg.Channel,
		"code", refusal.Code, "reason", refusal.Reason)
	// delivery.error codes as a failed status's: ours, with the
	// provider's code and text in the message.
	code := string(refusal.Code)
	if refusal.Code == apierr.ChannelUnavailable {
		code = "provider_error"
	}
	d.FailedAt, d.Error = &at, &model.DeliveryError{Code: code, Message: refusal.Reason}
	msg.Status = "failed"
	var err error
	if msg.Delivery, err = json.Marshal(d); err != nil {
		return fmt.Errorf("send: delivery: %w", err)
	}
	return nil
}

// release undoes a reservation the provider refused and answers the
// refusal's API error: the message and what its reserve created removed,
// the quota unit given back, and what the refusal says about the account
// acted on. A database error is tried again (settleRetrying); one that
// persists leaves the message sending for the sweep, and the refusal is
// answered all the same.
func (s *Service) release(ctx context.Context, res *reservation, callErr error) error {
	refusal := channels.AsRefusal(callErr)
	msg, acc := res.msg, res.ob.Account
	if refusal.Code == apierr.ChannelRateLimited && refusal.RetryAfter <= 0 {
		refusal.RetryAfter = channels.DefaultRetryAfter
	}
	slog.Info("send: provider refused", "message_id", msg.ID, "channel", msg.Channel, "account", acc.ID,
		"code", refusal.Code, "reason", refusal.Reason)
	optedOut := false // a 131050 set the contact's marketing opt-out
	err := s.settleRetrying(ctx, "release", msg.ID, false, func(ctx context.Context) error {
		return s.Store.InTx(ctx, func(q repo.Queries) error { return s.releaseIn(ctx, q, res, refusal, &optedOut) })
	})
	if err != nil {
		slog.Error("send: release failed; the sweep settles the message", "message_id", msg.ID, "err", err)
	} else if optedOut {
		s.Events.CommittedSends(ctx)
	}
	if refusal.RefreshTemplates && s.Refresher != nil {
		if err := s.Refresher.RefreshTemplates(ctx, msg.WorkspaceID, acc.ID); err != nil {
			slog.Warn("send: template refresh not queued", "account", acc.ID, "err", err)
		}
	}
	return refused(refusal)
}

// releaseIn is release's transaction.
func (s *Service) releaseIn(ctx context.Context, q repo.Queries, res *reservation, refusal *channels.Refusal, optedOut *bool) error {
	msg, acc := res.msg, res.ob.Account
	// The conversation before the message, which ReleaseMessage removes
	// and then takes off the conversation's count: the order every
	// writer locks the two in (graph/metahook/callback.go).
	scope := repo.Scope{WorkspaceID: msg.WorkspaceID, Livemode: msg.Livemode}
	if _, err := q.LockConversation(ctx, scope, msg.ConversationID); err != nil {
		return ignoreGone(err) // and the message with it
	}
	removed, err := q.ReleaseMessage(ctx, msg.WorkspaceID, msg.Livemode, msg.ID)
	if err != nil || !removed {
		return err
	}
	if res.created {
		created, err := q.TakeSendCreations(ctx, msg.ID)
		if err != nil {
			return err
		}
		if created != nil {
			if err := q.RemoveCreations(ctx, created); err != nil {
				return err
			}
		}
	}
	if res.period != "" {
		if err := q.UncountMessage(ctx, msg.WorkspaceID, msg.Livemode, res.period, res.shard); err != nil {
			return err
		}
	}
	if refusal.NeedsReauth {
		if err := q.NeedsReauth(ctx, msg.WorkspaceID, acc.ID, refusal.Reason, s.Clock.Now()); err != nil {
			return err
		}
	}
	if refusal.MarketingOptOut {
		// After the removal of what the send created: a contact it created
		// is gone, and no event names it.
		c, err := contact.SetOptOut(ctx, q, s.Events, scope, contact.OptOut{Channel: "whatsapp", Kind: contact.Marketing,
			Stop: true, Address: res.ob.To}, s.Clock.Now())
		if err != nil {
			return err
		}
		*optedOut = c != nil
	}
	if refusal.Code == apierr.ChannelRateLimited && refusal.Hold != channels.HoldNone {
		who := ""
		switch refusal.Hold {
		case channels.HoldRecipient:
			who = res.ob.To
		case channels.HoldMarketing:
			who = repo.MarketingHold(res.ob.To)
		}
		return q.SetHold(ctx, msg.WorkspaceID, acc.ID, who, s.Clock.Now().Add(refusal.RetryAfter))
	}
	return nil
}
