package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// bounce applies a DSN sent to bounces+{msg_id}@{return path}: a failed
// recipient of that message fails it (bounced, the status code in the
// message); a permanent failure (5.x.x) also suppresses that address. A
// DSN naming anyone else changes nothing, since whoever read the bounce
// address (any recipient of the mail) may have written it; nor does any
// other Action, or mail that is not a DSN.
func (p *Processor) bounce(ctx context.Context, q repo.Queries, msgID, domain string, parsed *email.Parsed) error {
	if parsed.DSN == nil {
		slog.Info("mail to a bounce address that is not a DSN; ignored", "message_id", msgID)
		return nil
	}
	routes, err := q.BounceRoutes(ctx, p.ReturnPath.Sending(domain), domain)
	if err != nil {
		return err
	}
	for _, route := range routes {
		s := repo.Scope{WorkspaceID: route.WorkspaceID, Livemode: true}
		// The conversation, then the message: the order every writer of its
		// events locks in (graph/metahook/callback.go).
		conv, msg, err := q.LockConversationThenMessage(ctx, s, msgID)
		if errors.Is(err, repo.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if msg.Channel != "email" || msg.Direction != "outbound" {
			continue
		}
		failed, err := failedRecipient(msg, parsed.DSN)
		if err != nil {
			return err
		}
		if failed == nil {
			slog.Info("DSN names no failed recipient of its message; ignored", "message_id", msgID)
			continue
		}
		if err := p.failMessage(ctx, q, s, conv, msg, *failed); err != nil {
			return err
		}
		if failed.Permanent() {
			if err := p.suppress(ctx, q, s, failed.Recipient); err != nil {
				return err
			}
		}
	}
	return nil
}

// failedRecipient is the first recipient the DSN reports failed that is
// one of msg's own (To or Cc, in any case); nil when there is none.
func failedRecipient(msg *repo.Message, dsn *email.DSN) (*email.DSNRecipient, error) {
	var h model.EmailHeaders
	if len(msg.Email) > 0 {
		if err := json.Unmarshal(msg.Email, &h); err != nil {
			return nil, fmt.Errorf("mail: email headers of %s: %w", msg.ID, err)
		}
	}
	for i, r := range dsn.Recipients {
		if r.Action != "failed" || r.Recipient == "" {
			continue
		}
		for _, a := range append(h.To, h.Cc...) {
			if strings.EqualFold(a, r.Recipient) {
				return &dsn.Recipients[i], nil
			}
		}
	}
	return nil, nil
}

// failMessage moves a sent or delivered message to failed with the bounce.
func (p *Processor) failMessage(ctx context.Context, q repo.Queries, s repo.Scope, conv *repo.Conversation, msg *repo.Message, r email.DSNRecipient) error {
	if msg.Status != "sent" && msg.Status != "delivered" {
		return nil // failed already, or not out yet: a late bounce changes nothing
	}
	var d model.Delivery
	if len(msg.Delivery) > 0 {
		if err := json.Unmarshal(msg.Delivery, &d); err != nil {
			return fmt.Errorf("mail: delivery of %s: %w", msg.ID, err)
		}
	}
	at := model.NewTimestamp(p.Clock.Now())
	text := r.Status
	if r.Diagnostic != "" {
		text += ": " + r.Diagnostic
	}
	if r.Recipient != "" {
		text += " (" + r.Recipient + ")"
	}
	d.FailedAt, d.Error = &at, &model.DeliveryError{Code: "bounced", Message: strings.TrimSpace(text)}
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	msg.Status, msg.Delivery = "failed", raw
	if err := q.UpdateMessageDelivery(ctx, msg); err != nil {
		return err
	}
	return p.Events.Record(ctx, q, s, event.MessageStatus, view.Conversation(conv), view.Message(msg))
}

// suppress sets email_suppressed on the bounced address's contact (none
// when no contact has it).
func (p *Processor) suppress(ctx context.Context, q repo.Queries, s repo.Scope, address string) error {
	ct, err := q.ContactBy(ctx, s, "email", address)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ct.EmailSuppressed) > 0 && string(ct.EmailSuppressed) != "null" {
		return nil
	}
	now := p.Clock.Now()
	mark, err := json.Marshal(map[string]any{"reason": "bounced", "at": model.NewTimestamp(now)})
	if err != nil {
		return err
	}
	if err := q.SuppressEmail(ctx, s, ct.ID, mark, now); err != nil {
		return err
	}
	ct.EmailSuppressed, ct.UpdatedAt = mark, now
	return p.Events.Record(ctx, q, s, event.ContactUpdated, nil, event.ContactUpdate{Contact: view.Contact(ct), Changed: []string{"email_suppressed"}})
}
