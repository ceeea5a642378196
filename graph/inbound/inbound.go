// Package inbound takes customer messages in: the contact, the conversation
// (started or continued through package conversation) and the events, in
// order. Today the sandbox's simulated messages come this way.
package inbound

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what inbound reads outside its transaction; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	conversation.Accounts
}

// Service takes inbound messages.
type Service struct {
	Store  Store
	Clock  clock.Clock
	Events event.Recorder
	// Display makes an inbound mail's HTML safe to show; graph/mail's,
	// which is the email adapter's sanitiser under the server's remote
	// image policy. A mail with HTML is refused without one.
	Display Display
}

// Display makes an inbound mail's HTML safe to show: cid: references
// become the links of inline (Content-ID to the file's reference), and
// the warnings of what it withheld join warnings.
type Display interface {
	Show(html string, inline map[string]string, warnings []model.EmailWarning) (string, []model.EmailWarning)
}

// Simulate injects a customer message into the sandbox as a channel
// would deliver it: the same sender continues its conversation.
func (s *Service) Simulate(ctx context.Context, in model.SimulateInboundInput) (*model.InboundResult, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if a.Livemode {
		return nil, apierr.New(apierr.TestKeyRequired, "Simulated messages need a test key (svc_test_).")
	}
	if !channels.Valid(in.Channel) {
		return nil, apierr.New(apierr.InvalidRequest, "channel must be one of website, whatsapp, instagram, email.")
	}
	from := strings.TrimSpace(in.From)
	if from == "" {
		return nil, apierr.New(apierr.InvalidRequest, "from is required.")
	}
	if in.Text == nil || strings.TrimSpace(*in.Text) == "" {
		return nil, apierr.New(apierr.InvalidRequest, "text is required.")
	}
	if limit := MaxText(in.Channel); len(*in.Text) > limit {
		return nil, apierr.New(apierr.InvalidRequest, "text must be at most %d bytes on %s.", limit, in.Channel)
	}
	comment := in.Comment != nil && *in.Comment
	if comment && in.Channel != "instagram" {
		return nil, apierr.New(apierr.InvalidRequest, "comment applies to Instagram only.")
	}
	switch in.Channel {
	case "whatsapp":
		// A phone, or the business-scoped user id of a customer with a username.
		if !channels.IsWhatsAppUserID(from) {
			if from, err = contact.NormalizePhone(from); err != nil {
				return nil, err
			}
		}
	case "email":
		if from, err = contact.NormalizeEmail(from); err != nil {
			return nil, err
		}
	}
	if err := a.CheckChannel(in.Channel); err != nil {
		return nil, err
	}
	acc, err := conversation.ChannelAccount(ctx, s.Store, a, in.Channel, "account_id", in.AccountID)
	if err != nil {
		return nil, err
	}
	name := ""
	if in.Name != nil {
		name = *in.Name
	}
	return s.Receive(ctx, a.Scope(), acc, Message{Channel: in.Channel, From: from, Name: name, Text: in.Text,
		Subject: in.Subject, Comment: comment})
}

// receive stores one inbound message with its contact and conversation, and
// records the events it causes, in order.
func (s *Service) receive(ctx context.Context, q repo.Queries, scope repo.Scope, acc *repo.Account, m Message) (*model.InboundResult, error) {
	now := s.Clock.Now()
	channel := m.Channel
	stop := channel == "whatsapp" && m.Text != nil && strings.EqualFold(strings.TrimSpace(*m.Text), "STOP")
	ct, err := s.customer(ctx, q, scope, m, now)
	if err != nil {
		return nil, err
	}
	conv, changed, err := continued(ctx, q, scope, ct, acc, m)
	if err != nil {
		return nil, err
	}
	created := conv == nil
	if created {
		if conv, err = conversation.Start(ctx, q, scope, acc, ct, m.Comment, now); err != nil {
			return nil, fmt.Errorf("inbound: %w", err)
		}
		if channel == "email" && m.Subject != nil {
			conv.Subject = m.Subject
		}
	}
	if m.Echo == nil {
		at := now
		if !m.At.IsZero() {
			at = m.At
		}
		conv.LastInboundAt = &at
	}
	if err := conversation.Save(ctx, q, scope, conv, ct, created, now); err != nil {
		return nil, fmt.Errorf("inbound: %w", err)
	}
	msg, err := s.store(ctx, q, scope, acc, conv, ct, m, now)
	if err != nil {
		return nil, err
	}
	convOut, msgOut := view.Conversation(conv), view.Message(msg)
	if err := s.conversationEvent(ctx, q, scope, convOut, created, changed); err != nil {
		return nil, err
	}
	kind := event.MessageReceived
	if m.Echo != nil {
		kind = event.MessageSent
	}
	if err := s.Events.Record(ctx, q, scope, kind, convOut, msgOut); err != nil {
		return nil, err
	}
	if stop {
		if _, err := contact.SetOptOut(ctx, q, s.Events, scope, contact.OptOut{Channel: "whatsapp", Kind: contact.All,
			Stop: true, ContactID: ct.ID}, now); err != nil {
			return nil, err
		}
	}
	return &model.InboundResult{Livemode: scope.Livemode, Conversation: convOut, Message: msgOut}, nil
}

// customer finds or creates the sender's contact and marks it seen.
func (s *Service) customer(ctx context.Context, q repo.Queries, scope repo.Scope, m Message, now time.Time) (ct *repo.Contact, err error) {
	name := m.From
	if strings.TrimSpace(m.Name) != "" {
		name = strings.TrimSpace(m.Name)
	}
	userID := ""
	if m.Channel == "whatsapp" {
		ct, userID, err = whatsappCustomer(ctx, q, scope, m)
	} else {
		ct, err = q.ContactBy(ctx, scope, contact.IdentityColumn[m.Channel], m.From)
	}
	newContact := errors.Is(err, repo.ErrNotFound)
	if err != nil && !newContact {
		return nil, err
	}
	if newContact {
		ct = contact.FromChannel(scope, m.Channel, m.From, name, "captured", now)
	}
	if userID != "" && ct.WhatsAppUserID == nil {
		ct.WhatsAppUserID, ct.UpdatedAt = &userID, now
	}
	if m.Echo == nil {
		ct.LastSeenAt = &now
	}
	if newContact {
		if err := q.InsertContact(ctx, ct); err != nil {
			return nil, fmt.Errorf("inbound: insert contact: %w", err)
		}
		if err := s.Events.Record(ctx, q, scope, event.ContactCreated, nil, view.Contact(ct)); err != nil {
			return nil, err
		}
	} else if err := q.UpdateContact(ctx, scope, ct); err != nil {
		return nil, fmt.Errorf("inbound: update contact: %w", err)
	}

	return ct, nil
}

// continued is the conversation a new message of the customer joins: the
// latest on the account, reopened when closed (changed names what that
// changed), or nil when a new one starts.
func continued(ctx context.Context, q repo.Queries, s repo.Scope, ct *repo.Contact, acc *repo.Account, m Message) (conv *repo.Conversation, changed []string, err error) {
	if m.Thread != nil {
		conv, err = m.Thread(ctx, q, ct)
	} else {
		conv, err = q.LatestConversation(ctx, s, ct.ID, acc.Channel, acc.ID, m.Comment)
	}
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return nil, nil, fmt.Errorf("inbound: latest conversation: %w", err)
	}
	// A closed website chat stays closed: the visitor starts a new one.
	// Other channels reopen the thread.
	if conv != nil && conv.Status == "closed" && m.Echo == nil {
		if acc.Channel == "website" {
			conv = nil
		} else {
			mode, err := conversation.ReopenMode(ctx, q, conv)
			if err != nil {
				return nil, nil, err
			}
			changed = append(changed, "status")
			if mode != conv.Mode {
				changed = append(changed, "mode")
			}
			conv.Status, conv.Mode = "open", mode
		}
	}
	return conv, changed, nil
}

// MaxText is the largest inbound text of a channel, in bytes: 64 KiB on the
// chat channels (far above what WhatsApp, Instagram or the widget carry),
// 25 MB for email, the common mail size limit.
func MaxText(channel string) int {
	if channel == "email" {
		return 25 << 20
	}
	return 64 << 10
}

// conversationEvent records what an inbound message did to its
// conversation: conversation.created for a new one, conversation.updated
// with the fields that changed (a reopen), or nothing.
func (s *Service) conversationEvent(ctx context.Context, q repo.Queries, scope repo.Scope, conv *model.Conversation, created bool, changed []string) error {
	switch {
	case created:
		return s.Events.Record(ctx, q, scope, event.ConversationCreated, conv, conv)
	case changed != nil:
		return s.Events.Record(ctx, q, scope, event.ConversationUpdated, conv, event.ConversationUpdate{Conversation: conv, Changed: changed})
	}
	return nil
}
