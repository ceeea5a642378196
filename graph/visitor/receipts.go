package visitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// rank orders the statuses an outbound message moves through;
// a status without a rank (sending, failed) is never moved by a widget.
var rank = map[string]int{"sent": 1, "delivered": 2, "read": 3}

// Forward says whether a message in status from moves to status to: only
// forward, never from failed or a send still in progress.
func Forward(from, to string) bool {
	return rank[from] > 0 && rank[to] > rank[from]
}

// Delivered marks an outbound website message that a connected widget
// received: sent becomes delivered, with delivery.delivered_at, and
// message.status is recorded. Anything else changes nothing.
func (svc *Service) Delivered(ctx context.Context, workspaceID, messageID string) error {
	return svc.advance(ctx, workspaceID, messageID, "delivered", "")
}

// Read marks an outbound message of the visitor's chats that the visitor
// saw: sent or delivered becomes read (delivered_at is set too when it was
// missing). A message of another visitor is message_not_found.
func (svc *Service) Read(ctx context.Context, v *repo.Visitor, messageID string) error {
	if v.ContactID == "" {
		// A visitor without a contact (no message yet) has no chat.
		return apierr.New(apierr.MessageNotFound, "No message %q of this visitor.", messageID)
	}
	return svc.advance(ctx, v.WorkspaceID, messageID, "read", v.ContactID)
}

func (svc *Service) advance(ctx context.Context, workspaceID, messageID, to, contactID string) error {
	s := scope(workspaceID)
	notFound := apierr.New(apierr.MessageNotFound, "No message %q of this visitor.", messageID)
	changed := false
	err := svc.Store.InTx(ctx, func(q repo.Queries) error {
		// The conversation, then the message, as every writer of its events
		// locks them (graph/metahook/callback.go), so its events are
		// recorded, and delivered, in order.
		conv, m, err := q.LockConversationThenMessage(ctx, s, messageID)
		if errors.Is(err, repo.ErrNotFound) {
			return notFound
		}
		if err != nil {
			return err
		}
		if m.Channel != "website" || m.Direction != "outbound" {
			return notFound
		}
		if contactID != "" && (conv.ContactID == nil || *conv.ContactID != contactID) {
			return notFound
		}
		if !Forward(m.Status, to) {
			return nil
		}
		if err := svc.move(m, to); err != nil {
			return err
		}
		if err := q.UpdateMessageDelivery(ctx, m); err != nil {
			return err
		}
		changed = true
		out := view.Message(m)
		svc.Files.SignAttachments(out)
		return svc.Events.Record(ctx, q, s, event.MessageStatus, view.Conversation(conv), out)
	})
	if err == nil && changed {
		svc.Events.Committed(ctx)
	}
	return err
}

// move sets a message's status and the time of it in its delivery.
func (svc *Service) move(m *repo.Message, to string) error {
	var d model.Delivery
	if len(m.Delivery) > 0 && string(m.Delivery) != "null" {
		if err := json.Unmarshal(m.Delivery, &d); err != nil {
			return fmt.Errorf("visitor: delivery of %s: %w", m.ID, err)
		}
	}
	at := model.NewTimestamp(svc.Clock.Now())
	if d.DeliveredAt == nil {
		d.DeliveredAt = &at
	}
	if to == "read" {
		d.ReadAt = &at
	}
	m.Status = to
	var err error
	m.Delivery, err = json.Marshal(d)
	return err
}

// Pending lists the outbound live website messages to the contacts that no
// widget has received yet, oldest first.
func (svc *Service) Pending(ctx context.Context, contactIDs []string) ([]repo.PendingMessage, error) {
	return svc.Store.UndeliveredWebsiteMessages(ctx, contactIDs)
}

// Changed lists the contacts with an unreceived outbound live website
// message written, or a live website chat closed, since a time.
func (svc *Service) Changed(ctx context.Context, since time.Time) ([]string, error) {
	return svc.Store.WebsiteChanges(ctx, since)
}

// Contacts returns the contacts of those visitors that have one by now
// (visitors are given theirs on their first message).
func (svc *Service) Contacts(ctx context.Context, visitorIDs []string) ([]repo.VisitorContact, error) {
	return svc.Store.VisitorContacts(ctx, visitorIDs)
}

// Chats returns the latest website chat of each contact and website.
func (svc *Service) Chats(ctx context.Context, contactIDs []string) ([]repo.ChatState, error) {
	return svc.Store.LatestWebsiteChats(ctx, contactIDs)
}
