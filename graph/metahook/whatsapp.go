package metahook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// message takes one inbound WhatsApp message in as message.received: the
// contact by phone with the profile name, the conversation found, reopened
// or started, the window's last_inbound_at the message's own time, media
// downloaded and checked against its sha256. A retried wamid changes
// nothing.
func (s *Service) message(ctx context.Context, t target, m *meta.WhatsAppMessage) error {
	phone, err := contact.NormalizePhone("+" + strings.TrimPrefix(m.From, "+"))
	if err != nil {
		return fmt.Errorf("metahook: wa_id %q: %w", m.From, err)
	}
	scope := repo.Scope{WorkspaceID: t.acc.WorkspaceID, Livemode: true}
	in := inbound.Message{Channel: "whatsapp", From: phone, Name: m.ProfileName, Type: m.Type, At: m.Timestamp,
		Stored: func(ctx context.Context, q repo.Queries, msg *repo.Message) error {
			// Meta retries a webhook: the second copy of a wamid rolls back.
			fresh, err := q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: "whatsapp",
				ProviderID: m.ID, MessageID: msg.ID, Status: "received"})
			if err == nil && !fresh {
				err = errDuplicate
			}
			return err
		}}
	text := m.Text
	if m.Media != nil {
		file, note := s.media(ctx, t, m)
		if file != nil {
			in.Files = []inbound.File{*file}
		}
		if note != "" {
			text = strings.TrimSpace(text + "\n" + note)
		}
	}
	if text != "" {
		in.Text = &text
	}
	_, err = s.Inbound.Receive(ctx, scope, t.acc, in)
	if errors.Is(err, errDuplicate) {
		slog.Info("meta hook: message already received", "wamid", m.ID)
		return nil
	}
	return err
}

// errDuplicate is a wamid already received.
var errDuplicate = errors.New("metahook: the message was already received")

// media downloads a message's media; a failure keeps the message without
// it, with a note, and is not retried.
func (s *Service) media(ctx context.Context, t target, m *meta.WhatsAppMessage) (*inbound.File, string) {
	if s.WhatsApp == nil {
		return nil, "[media not downloaded]"
	}
	got, err := s.WhatsApp.DownloadMedia(ctx, t.creds, m.Media.ID, m.Media.SHA256)
	if err != nil {
		slog.Warn("meta hook: media not kept", "wamid", m.ID, "media_id", m.Media.ID, "err", err)
		return nil, "[the " + m.Type + " could not be downloaded]"
	}
	contentType := got.MimeType
	if contentType == "" {
		contentType = m.Media.MimeType
	}
	name := m.Media.Filename
	if name == "" {
		name = m.Type
		if exts, _ := mime.ExtensionsByType(contentType); len(exts) > 0 {
			name += exts[0]
		}
	}
	return &inbound.File{Filename: name, ContentType: contentType, Content: got.Content}, ""
}

// rank orders statuses: a status moves forward only.
var rank = map[string]int{"sending": 0, "sent": 1, "delivered": 2, "read": 3, "failed": 4}

// forward says whether a status may follow another: sent → delivered →
// read, and failed only from sent or delivered (live.md 3).
func forward(from, to string) bool {
	if to == "failed" {
		return from == "sending" || from == "sent" || from == "delivered"
	}
	return from != "failed" && rank[to] > rank[from]
}

// DefaultEarlyStatusWait is how long a status of a wamid none of our
// messages has yet is processed again, whatever else holds.
const DefaultEarlyStatusWait = time.Minute

// ErrStatusEarly is a status of a wamid not stored yet: its hook is
// processed again later (the job's retry, then the sweep).
var ErrStatusEarly = errors.New("metahook: a status arrived before the wamid it names was stored; processed again later")

// status applies a status of one provider message to its message: forward
// only, the message's status the least advanced of its parts (failed if any
// failed), message.status on a change. See statusOf for a wamid not known.
func (s *Service) status(ctx context.Context, st *meta.WhatsAppStatus, received time.Time) error {
	next := st.Status
	if _, ok := rank[next]; !ok || next == "sending" {
		slog.Info("meta hook: status not tracked", "wamid", st.ID, "status", next)
		return nil
	}
	return s.statusOf(ctx, st, received, func(ctx context.Context) (bool, error) { return s.applyKnown(ctx, st) },
		func(ctx context.Context) (named, error) { return s.settleNamed(ctx, st) })
}

// statusOf applies a status through apply, which reports whether the
// wamid is one of our messages. Meta may post a status before the send
// that got the wamid confirmed it (reserve → call → confirm: the wamid is
// stored only at confirm), so a status of an unknown wamid is processed
// again (ErrStatusEarly) while its hook is younger than EarlyStatusWait or
// while a send on the number is still sending; after that it is logged and
// dropped: a send is sending for at most the provider timeout and the sweep's
// grace, so the wait is bounded.
//
// A status of an unknown wamid that carries biz_opaque_callback_data (our
// message id, which every /messages send carries) goes to settle first: a
// message the sweep gave up as provider_unknown (its process died before
// confirm stored the wamid) is settled with the wamid and the status then
// applied through apply; one still sending is processed again.
func (s *Service) statusOf(ctx context.Context, st *meta.WhatsAppStatus, received time.Time, apply func(context.Context) (bool, error), settle func(context.Context) (named, error)) error {
	known, err := apply(ctx)
	if err != nil || known {
		return err
	}
	if st.BizOpaqueCallbackData != "" {
		n, err := settle(ctx)
		switch {
		case err != nil:
			return err
		case n == namedSending:
			return ErrStatusEarly
		case n == namedSettled:
			if known, err = apply(ctx); err == nil && !known {
				err = fmt.Errorf("metahook: wamid %s settled message %s but is not found", st.ID, st.BizOpaqueCallbackData)
			}
			return err
		}
	}
	wait := s.EarlyStatusWait
	if wait <= 0 {
		wait = DefaultEarlyStatusWait
	}
	if s.Clock.Now().Sub(received) < wait {
		return ErrStatusEarly
	}
	sending, err := s.Store.WhatsAppSending(ctx, st.PhoneNumberID)
	if err != nil {
		return err
	}
	if sending {
		return ErrStatusEarly
	}
	// A confirm may have committed between the lookup and the check.
	if known, err = apply(ctx); err != nil || known {
		return err
	}
	slog.Info("meta hook: status of an unknown message; dropped", "wamid", st.ID, "status", st.Status,
		"phone_number_id", st.PhoneNumberID, "received_at", received)
	return nil
}

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
// to it: wait for a send still sending, settle one the sweep gave up as
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
// wamid as its provider id (part 0: a provider_unknown message has none),
// sent_at the status's time, delivery.error and failed_at cleared, and
// message.status; no message.sent, its failure was announced already.
func (s *Service) settleOn(ctx context.Context, acc *repo.AccountProvider, st *meta.WhatsAppStatus) (named, error) {
	scope := repo.Scope{WorkspaceID: acc.WorkspaceID, Livemode: true, Channels: []string{"whatsapp"}}
	n := namedNothing
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		n = namedNothing
		m, err := q.Message(ctx, scope, st.BizOpaqueCallbackData)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		// The conversation, then the message: the order every writer locks in.
		conv, err := q.LockConversation(ctx, scope, m.ConversationID)
		if err != nil || conv.AccountID != acc.AccountID {
			return err
		}
		if m, err = q.LockMessage(ctx, acc.WorkspaceID, true, m.ID); err != nil {
			return err
		}
		if n = namedOf(m); n != namedSettled {
			return nil
		}
		at := model.NewTimestamp(s.Clock.Now())
		if !st.Timestamp.IsZero() {
			at = model.NewTimestamp(st.Timestamp)
		}
		wamid := st.ID
		m.Status = "sent"
		if m.Delivery, err = json.Marshal(model.Delivery{ProviderMessageID: &wamid, SentAt: &at}); err != nil {
			return err
		}
		ok, err := q.SettleUnknownMessage(ctx, m)
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
		slog.Warn("meta hook: a provider_unknown message settled by its status's biz_opaque_callback_data",
			"message_id", m.ID, "wamid", wamid)
		return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), view.Message(m))
	})
	if err != nil {
		return namedNothing, err
	}
	if n == namedSettled {
		s.Events.Committed(ctx)
	}
	return n, nil
}

// applyKnown applies a status to the message its wamid names; false when
// no message has the wamid.
func (s *Service) applyKnown(ctx context.Context, st *meta.WhatsAppStatus) (bool, error) {
	known, changed := false, false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		part, err := q.LockProviderMessage(ctx, "whatsapp", st.ID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		known = err == nil
		if err != nil || !forward(part.Status, st.Status) || part.Status == "received" {
			return err
		}
		if err := q.SetProviderStatus(ctx, "whatsapp", st.ID, st.Status); err != nil {
			return err
		}
		changed, err = s.applyStatus(ctx, q, part.MessageID, st)
		return err
	})
	if err == nil && changed {
		s.Events.Committed(ctx)
	}
	return known, err
}

// applyStatus moves the message to the least advanced status of its parts.
func (s *Service) applyStatus(ctx context.Context, q repo.Queries, messageID string, st *meta.WhatsAppStatus) (bool, error) {
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
	ws, err := q.MessageWorkspace(ctx, messageID)
	if err != nil {
		return false, err
	}
	m, err := q.LockMessage(ctx, ws, true, messageID)
	if err != nil {
		return false, err
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
	}
	m.Status = least
	if m.Delivery, err = json.Marshal(d); err != nil {
		return false, err
	}
	if err := q.UpdateMessageDelivery(ctx, m); err != nil {
		return false, err
	}
	scope := repo.Scope{WorkspaceID: ws, Livemode: true}
	conv, err := q.LockConversation(ctx, scope, m.ConversationID)
	if err != nil {
		return false, err
	}
	return true, s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), view.Message(m))
}

// deliveryError is delivery.error of a failed status (live.md 4).
func deliveryError(errs []meta.WhatsAppError) *model.DeliveryError {
	if len(errs) == 0 {
		return &model.DeliveryError{Code: "provider_error", Message: "The provider reported the message failed without a reason."}
	}
	code := "provider_error"
	if errs[0].Code == 131026 {
		code = "recipient_unreachable"
	}
	return &model.DeliveryError{Code: code, Message: errs[0].Reason()}
}
