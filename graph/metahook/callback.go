package metahook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// The lock order of a conversation's writers. Every writer of a
// conversation's events locks the conversation's row first and then the
// message's, so the conversation's events are recorded in order, and no
// two writers deadlock: one holding the message and waiting for the
// conversation against one holding the conversation and waiting for the
// message would make Postgres abort one of them (40P01), a failed webhook
// from Meta or receipt. A writer that knows only the message takes both
// through repo.LockConversationThenMessage. The paths that lock both, all
// conversation first:
//
//   - a send: its reserve (graph/send/target.go) locks the conversation and
//     inserts the message; confirm (pipeline.go) locks the conversation and
//     then updates the message; release (settle.go) locks the conversation
//     and then removes the message;
//   - the sweep's give-up of a message left sending (graph/send/sweep.go);
//   - a WhatsApp status (applyStatus below) and the settle of a message a
//     status names by biz_opaque_callback_data (settleOn below);
//   - a widget's delivery or read receipt (graph/visitor/receipts.go);
//   - an Instagram DM the customer unsent (graph/instagram/dm.go, Unsent);
//   - an email bounce (graph/mail/bounce.go);
//   - inbound messages (graph/inbound), which lock the conversation and
//     insert the message;
//   - the sandbox's delivered/failed pass (graph/send/sandbox.go), which
//     locks conversations and then messages (FOR UPDATE OF c, m) and skips
//     what another holds (SKIP LOCKED), so it never waits at all.
//
// Each but the last has a test that holds the conversation and sees the
// path wait for it without holding the message (repotest.ConversationFirst);
// the sandbox pass's test sees it skip rows another transaction holds.

// named is what a status's biz_opaque_callback_data names when its wamid
// is none of our messages'.
type named int

const (
	// namedNothing: no message of the number's accounts by that id, or one
	// that is neither sending nor given up as provider_unknown.
	namedNothing named = iota
	// namedSending: a message between reserve and confirm.
	namedSending
	// namedSettled: a provider_unknown message, now settled with the wamid.
	namedSettled
)

// namedOf is what a status naming m (by biz_opaque_callback_data) may do
// to it: settle a send still sending or one the sweep gave up as
// provider_unknown (not knowing is ours; Meta's status says it took the
// message), nothing to any other.
func namedOf(m *repo.Message) named {
	switch {
	case m == nil || m.Direction != "outbound" || m.Channel != "whatsapp" || !m.Livemode:
		return namedNothing
	case m.Status == "sending":
		return namedSending
	case m.Status != "failed" || len(m.Delivery) == 0:
		return namedNothing
	}
	var d model.Delivery
	if err := json.Unmarshal(m.Delivery, &d); err != nil || d.Error == nil || d.Error.Code != "provider_unknown" || d.ProviderMessageID != nil {
		return namedNothing
	}
	return namedSettled
}

// settleNamed settles the message a status of an unknown wamid names by
// biz_opaque_callback_data, looked up only among the messages of the
// accounts the status's phone_number_id routes to: the value is ours, but
// a payload is only as trusted as the account it came for.
func (s *Service) settleNamed(ctx context.Context, st *meta.WhatsAppStatus) (named, error) {
	rows, err := s.Store.AccountProvidersByKey(ctx, "whatsapp", st.PhoneNumberID)
	if err != nil {
		return namedNothing, err
	}
	for i := range rows {
		if n, err := s.settleOn(ctx, &rows[i], st); err != nil || n != namedNothing {
			return n, err
		}
	}
	slog.Info("meta hook: biz_opaque_callback_data names no message of the number", "wamid", st.ID,
		"phone_number_id", st.PhoneNumberID, "callback", st.BizOpaqueCallbackData)
	return namedNothing, nil
}

// settleOn settles the named message if it is one of acc's: sent with the
// wamid as its provider id, sent_at the status's time, and an event. A
// message still sending (its provider call got no answer, its process died,
// or its confirm has not committed yet) gets what its reserve created
// announced and message.sent: Meta's status says it took the message, and
// a confirm that comes later finds it settled. One the sweep gave up as
// provider_unknown (delivery.error and failed_at cleared) gets
// message.status: its failure was announced already.
func (s *Service) settleOn(ctx context.Context, acc *repo.AccountProvider, st *meta.WhatsAppStatus) (named, error) {
	scope := repo.Scope{WorkspaceID: acc.WorkspaceID, Livemode: true, Channels: []string{"whatsapp"}}
	n := namedNothing
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		n = namedNothing
		// The conversation, then the message: the order every writer locks in.
		conv, m, err := q.LockConversationThenMessage(ctx, scope, st.BizOpaqueCallbackData)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil || conv.AccountID != acc.AccountID {
			return err
		}
		if n = namedOf(m); n == namedNothing {
			return nil
		}
		at := model.NewTimestamp(s.Clock.Now())
		if !st.Timestamp.IsZero() {
			at = model.NewTimestamp(st.Timestamp)
		}
		wamid, was := st.ID, n
		m.Status = "sent"
		if m.Delivery, err = json.Marshal(model.Delivery{ProviderMessageID: &wamid, SentAt: &at}); err != nil {
			return err
		}
		var ok bool
		if was == namedSending {
			ok, err = q.ConfirmMessage(ctx, m)
		} else {
			ok, err = q.SettleUnknownMessage(ctx, m)
		}
		if err == nil && ok {
			ok, err = q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: "whatsapp", ProviderID: wamid,
				MessageID: m.ID, Status: "sent"})
		}
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("metahook: message %s or wamid %s settled meanwhile", m.ID, wamid)
		}
		n = namedSettled
		out := view.Message(m)
		if was == namedSending {
			slog.Info("meta hook: a message still sending settled by its status's biz_opaque_callback_data",
				"message_id", m.ID, "wamid", wamid)
			if err := send.AnnounceCreations(ctx, q, s.Events, scope, m.ID); err != nil {
				return err
			}
			return s.Events.Record(ctx, q, scope, event.MessageSent, view.Conversation(conv), out)
		}
		slog.Warn("meta hook: a provider_unknown message settled by its status's biz_opaque_callback_data",
			"message_id", m.ID, "wamid", wamid)
		return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), out)
	})
	if err != nil {
		return namedNothing, err
	}
	if n == namedSettled {
		s.Events.Committed(ctx)
	}
	return n, nil
}

// applyKnown applies a status to the message its wamid names among the
// messages of the accounts its phone_number_id routes to (a payload is
// only as trusted as the account it came for); false when none of them
// has the wamid.
func (s *Service) applyKnown(ctx context.Context, st *meta.WhatsAppStatus) (bool, error) {
	rows, err := s.Store.AccountProvidersByKey(ctx, "whatsapp", st.PhoneNumberID)
	if err != nil {
		return false, err
	}
	for i := range rows {
		if known, err := s.applyOn(ctx, &rows[i], st); err != nil || known {
			return known, err
		}
	}
	return false, nil
}

// applyOn applies a status to the message of acc its wamid names; false
// when acc has none.
func (s *Service) applyOn(ctx context.Context, acc *repo.AccountProvider, st *meta.WhatsAppStatus) (bool, error) {
	scope := repo.Scope{WorkspaceID: acc.WorkspaceID, Livemode: true}
	known, changed := false, false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		part, err := q.LockProviderMessageOn(ctx, scope, acc.AccountID, "whatsapp", st.ID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		known = err == nil
		if err != nil || !forward(part.Status, st.Status) || part.Status == "received" {
			return err
		}
		if err := q.SetProviderStatus(ctx, scope.WorkspaceID, "whatsapp", st.ID, st.Status); err != nil {
			return err
		}
		changed, err = s.applyStatus(ctx, q, scope, part.MessageID, st)
		return err
	})
	if err == nil && changed {
		s.Events.Committed(ctx)
	}
	return known, err
}

// applyStatus moves the message to the least advanced status of its parts.
func (s *Service) applyStatus(ctx context.Context, q repo.Queries, scope repo.Scope, messageID string, st *meta.WhatsAppStatus) (bool, error) {
	// The conversation, then the message: the order every writer locks in.
	// The parts are read under the locks, so a status of another part
	// applied meanwhile is seen.
	conv, m, err := q.LockConversationThenMessage(ctx, scope, messageID)
	if err != nil {
		return false, err
	}
	parts, err := q.ProviderParts(ctx, messageID)
	if err != nil || len(parts) == 0 {
		return false, err
	}
	least := "failed"
	for _, p := range parts {
		if p.Status == "failed" {
			least = "failed"
			break
		}
		if rank[p.Status] < rank[least] {
			least = p.Status
		}
	}
	if !forward(m.Status, least) {
		return false, nil
	}
	var d model.Delivery
	if len(m.Delivery) > 0 {
		if err := json.Unmarshal(m.Delivery, &d); err != nil {
			return false, err
		}
	}
	at := model.NewTimestamp(s.Clock.Now())
	if !st.Timestamp.IsZero() {
		at = model.NewTimestamp(st.Timestamp)
	}
	switch least {
	case "delivered":
		d.DeliveredAt = &at
	case "read":
		d.ReadAt = &at
		if d.DeliveredAt == nil {
			d.DeliveredAt = &at
		}
	case "failed":
		d.FailedAt = &at
		d.Error = deliveryError(st.Errors)
		if err := s.failedFor(ctx, q, scope, conv, st); err != nil {
			return false, err
		}
	}
	m.Status = least
	if m.Delivery, err = json.Marshal(d); err != nil {
		return false, err
	}
	if err := q.UpdateMessageDelivery(ctx, m); err != nil {
		return false, err
	}
	return true, s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), view.Message(m))
}
