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
// recipient fails the message (bounced, the status code in the message);
// a permanent failure (5.x.x) also suppresses the address. Any other Action
// changes nothing, nor does mail that is not a DSN.
func (p *Processor) bounce(ctx context.Context, q repo.Queries, msgID, domain string, parsed *email.Parsed) error {
	if parsed.DSN == nil {
		slog.Info("mail to a bounce address that is not a DSN; ignored", "message_id", msgID)
		return nil
	}
	var failed *email.DSNRecipient
	for i, r := range parsed.DSN.Recipients {
		if r.Action == "failed" {
			failed = &parsed.DSN.Recipients[i]
			break
		}
	}
	if failed == nil {
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
		if err := p.failMessage(ctx, q, s, conv, msg, *failed); err != nil {
			return err
		}
		if failed.Permanent() {
			if err := p.suppress(ctx, q, s, msg, failed.Recipient); err != nil {
				return err
			}
		}
	}
	return nil
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

// suppress sets email_suppressed on the bounced address's contact.
func (p *Processor) suppress(ctx context.Context, q repo.Queries, s repo.Scope, msg *repo.Message, address string) error {
	var ct *repo.Contact
	var err error
	if address != "" {
		ct, err = q.ContactBy(ctx, s, "email", address)
	}
	if address == "" || errors.Is(err, repo.ErrNotFound) {
		conv, cerr := q.Conversation(ctx, s, msg.ConversationID)
		if cerr != nil || conv.ContactID == nil {
			return cerr
		}
		ct, err = q.Contact(ctx, s, *conv.ContactID)
	}
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
