package send

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// The live send runs in three steps (docs/architecture.md), none holding a
// transaction or a lock while the provider is called:
//
//	reserve: every rule, the quota unit taken, the message stored as
//	         sending (its place in the conversation taken), the
//	         Idempotency-Key bound to it, in one short transaction;
//	call:    the adapter, within ProviderTimeout;
//	confirm: sent with the provider's ids, the reserve's creations and
//	         message.sent; or release: the message and what its reserve
//	         created removed, the quota unit given back, the provider's
//	         refusal mapped (refused) and acted on (needs_reauth, rate-limit
//	         holds, a template refresh); or, when the request went out and
//	         no answer came (channels.OutcomeUnknown), unknown: the message
//	         stays sending, answered 202 (exactly.go).
//
// A process that dies between reserve and confirm leaves the message
// sending, as an unknown outcome does: a status naming it settles it
// (graph/metahook), or SweepSending fails it with provider_unknown after
// UnknownAfter, never sending it a second time. A provider answer that
// comes after the sweep (a stalled process) still settles the message:
// confirm stores its ids and status, or answers it as it is when a status
// settled it first.

// DefaultProviderTimeout bounds one provider call when none is configured.
const DefaultProviderTimeout = 15 * time.Second

// CredentialStore opens an account's provider credentials; nil, nil when
// the account has none (sandbox only). credentials.Vault is one.
type CredentialStore interface {
	Of(ctx context.Context, q credentials.Reader, workspaceID, accountID string) (*channels.Credentials, error)
}

// TemplateRefresher refreshes a number's templates from its provider soon
// (after a 132001); jobs.Client is one.
type TemplateRefresher interface {
	RefreshTemplates(ctx context.Context, workspaceID, accountID string) error
}

// reservation is a reserved send: the stored message and what its adapter
// gets.
type reservation struct {
	actor *auth.Actor
	msg   *repo.Message
	ob    *channels.Message
	// period is the quota month a unit was taken from; "" when none was.
	period string
	// shard is the quota shard the unit came from (repo.CountMessage).
	shard int
	// created says a live reserve kept a new contact or conversation in
	// send_creations, for the settle to announce or the release to remove.
	created bool
	// sent is the answer of a sandbox send, accepted in the reserve's own
	// transaction (sandboxAccept); nil for a live one.
	sent *model.Message
}

// credentialed channels need provider credentials for a live send.
var credentialed = map[string]bool{"whatsapp": true, "instagram": true}

// reserve checks every rule and stores the message as sending; a sandbox
// send it stores sent (sandboxAccept).
func (s *Service) reserve(ctx context.Context, a *auth.Actor, req *sendRequest) (*reservation, error) {
	res := &reservation{actor: a}
	inTx := s.Store.InTx
	if optimistic(a, req) {
		inTx = func(ctx context.Context, fn func(repo.Queries) error) error {
			return s.Store.InTxOptimistic(ctx, *req.in.ConversationID, fn)
		}
	}
	err := inTx(ctx, func(q repo.Queries) error {
		// Only q is used inside: a second pool connection per send could
		// starve the pool under concurrent sends. A run may be a second
		// one (InTxOptimistic): nothing of a first stays.
		*res = reservation{actor: a}
		t, err := s.lookups(ctx, q, a, req)
		if err != nil {
			return err
		}
		msgID := repo.NewID("msg_", s.Clock.Now())
		if err := bindKey(ctx, q, req.binding, msgID); err != nil {
			return err
		}
		content, err := s.channelRules(ctx, q, a, req, t, msgID)
		if err != nil {
			return err
		}
		var creds *channels.Credentials
		mk := marketing(req, content)
		if a.Livemode {
			if creds, err = s.liveRules(ctx, q, req, t, mk); err != nil {
				return err
			}
		}
		if a.Livemode && req.sender == nil { // AI and agent replies use no API quota
			period := Period(s.Clock.Now())
			shard, ok, err := q.CountMessage(ctx, a.WorkspaceID, true, period)
			if err != nil {
				return err
			}
			if !ok {
				return apierr.New(apierr.APIQuotaExceeded, "This month's API messages are used up; the quota resets on the 1st (see GET /v1/usage).")
			}
			res.period, res.shard = period, shard
		}
		if res.msg, res.ob, err = s.prepare(ctx, q, a, req, t, content, msgID); err != nil {
			return err
		}
		res.ob.Account.Provider = creds
		if req.async {
			return s.enqueue(ctx, q, res, req, t, mk)
		}
		if !a.Livemode {
			return s.sandboxAccept(ctx, q, res, req, t)
		}
		res.created = t.newContact || t.conv == nil
		return s.store(ctx, q, a.Scope(), req, t, res.msg, true)
	})
	if err == nil && req.binding != nil {
		req.binding.MessageID = res.msg.ID
	}
	return res, err
}

// optimistic says a send's reserve may run without a transaction first
// (repo.InTxOptimistic): a sandbox reply into a conversation, which only
// reads before its held writes. Any other send writes at once (a contact,
// a quota unit, a queued send) and would only read twice.
func optimistic(a *auth.Actor, req *sendRequest) bool {
	return !a.Livemode && !req.async && req.in.ConversationID != nil
}

// sandboxAccept settles a sandbox send in its reserve transaction: the
// sandbox adapter answers at once without leaving the process, so the
// message is stored sent and message.sent recorded in the same commit,
// one transaction per send instead of two (docs/performance.md).
func (s *Service) sandboxAccept(ctx context.Context, q repo.Queries, res *reservation, req *sendRequest, t *sendTarget) error {
	receipt, err := SandboxAdapter{}.Send(ctx, res.ob)
	if err != nil {
		return err
	}
	msg := res.msg
	if _, err := s.accept(msg, receipt); err != nil {
		return err
	}
	scope := res.actor.Scope()
	if err := s.store(ctx, q, scope, req, t, msg, false); err != nil {
		return err
	}
	res.sent = view.Message(msg)
	s.Files.SignAttachments(res.sent)
	return s.Events.Record(ctx, q, scope, event.MessageSent, view.Conversation(t.conv), res.sent)
}

// call hands a reserved message to its adapter within the provider timeout.
func (s *Service) call(ctx context.Context, ob *channels.Message) (*channels.Receipt, error) {
	if ob.Livemode && ob.Channel == "whatsapp" {
		// Outside any transaction: the message is reserved, nothing is held.
		if err := s.Pacer.Wait(ctx, paceKey(ob.Account)); err != nil {
			return nil, err
		}
	}
	return s.callAdapter(ctx, ob)
}

// callAdapter is call without the process's pacing: a queued message's
// pacer (campaign.go) has paced it already.
func (s *Service) callAdapter(ctx context.Context, ob *channels.Message) (*channels.Receipt, error) {
	timeout := s.ProviderTimeout
	if timeout <= 0 {
		timeout = DefaultProviderTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	receipt, err := s.adapter(ob.Livemode, ob.Channel).Send(ctx, ob)
	if ob.Livemode {
		observeCall(ob.Channel, err, time.Since(start))
	}
	if err == nil && (receipt == nil || len(receipt.ProviderIDs) == 0) {
		err = fmt.Errorf("send: %s adapter accepted without a provider id", ob.Channel)
	}
	return receipt, err
}

// accept marks a message sent now under the provider's first id.
func (s *Service) accept(msg *repo.Message, receipt *channels.Receipt) (model.Delivery, error) {
	sentAt := model.NewTimestamp(s.Clock.Now())
	delivery := model.Delivery{ProviderMessageID: &receipt.ProviderIDs[0], SentAt: &sentAt}
	var err error
	if msg.Delivery, err = json.Marshal(delivery); err != nil {
		return delivery, fmt.Errorf("send: delivery: %w", err)
	}
	msg.Status = "sent"
	return delivery, nil
}

// confirm stores the provider's acceptance: status sent, its ids, and
// message.sent. A message the provider took in part (a later part refused,
// Receipt.Failed) went out and is not undone: it is stored failed with the
// refusal in delivery.error, and message.status follows message.sent.
func (s *Service) confirm(ctx context.Context, res *reservation, receipt *channels.Receipt) (*model.Message, error) {
	scope, msg := res.actor.Scope(), res.msg
	delivery, err := s.accept(msg, receipt)
	if err != nil {
		return nil, err
	}
	sent := view.Message(msg)
	if receipt.Failed != nil {
		if err := failInPart(msg, delivery, receipt.Failed, *delivery.SentAt); err != nil {
			return nil, err
		}
	}
	var out *model.Message
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		// The conversation lock orders its events as every writer does.
		conv, err := q.LockConversation(ctx, scope, msg.ConversationID)
		if err != nil {
			return err
		}
		ok, err := q.ConfirmMessage(ctx, msg)
		late := false
		if err == nil && !ok {
			// The sweep gave the message up as provider_unknown while the
			// provider was still answering: its answer settles the message
			// (docs/whatsapp.md), whose failure was announced already.
			ok, err = q.SettleUnknownMessage(ctx, msg)
			late = ok
		}
		if err != nil {
			return err
		}
		if !ok {
			out, err = s.settledByStatus(ctx, q, msg, receipt, sent)
			if err == nil && out == nil {
				err = apierr.New(apierr.ChannelUnavailable, "The provider answered after message %s was settled otherwise.", msg.ID)
			}
			return err
		}
		if msg.Livemode {
			for i, id := range receipt.ProviderIDs {
				if _, err := q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: msg.Channel,
					ProviderID: id, MessageID: msg.ID, Part: i, Status: "sent"}); err != nil {
					return err
				}
			}
			if err := rememberWaID(ctx, q, scope, conv, res.ob, receipt); err != nil {
				return err
			}
		}
		out = view.Message(msg)
		s.Files.SignAttachments(sent, out)
		if late {
			slog.Warn("send: the provider answered after the sweep gave the message up; settled", "message_id", msg.ID, "status", msg.Status)
			return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), out)
		}
		if res.created {
			if err := AnnounceCreations(ctx, q, s.Events, scope, msg.ID); err != nil {
				return err
			}
		}
		if err := s.Events.Record(ctx, q, scope, event.MessageSent, view.Conversation(conv), sent); err != nil || msg.Status == "sent" {
			return err
		}
		return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), out)
	})
	return out, err
}
