// Package inbound takes customer messages in: the contact, the conversation
// (started or continued through package conversation) and the events, in
// order. Today the sandbox's simulated messages come this way.
package inbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/clock"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
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
}

// Simulate injects a customer message into the sandbox as a channel
// would deliver it: the same sender continues its conversation.
func (r *Service) Simulate(ctx context.Context, in model.SimulateInboundInput) (*model.InboundResult, error) {
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
	comment := in.Comment != nil && *in.Comment
	if comment && in.Channel != "instagram" {
		return nil, apierr.New(apierr.InvalidRequest, "comment applies to Instagram only.")
	}
	switch in.Channel {
	case "whatsapp":
		if from, err = contact.NormalizePhone(from); err != nil {
			return nil, err
		}
	case "email":
		if from, err = contact.NormalizeEmail(from); err != nil {
			return nil, err
		}
	}
	if err := a.CheckChannel(in.Channel); err != nil {
		return nil, err
	}
	acc, err := conversation.ChannelAccount(ctx, r.Store, a, in.Channel, "account_id", in.AccountID)
	if err != nil {
		return nil, err
	}
	var out *model.InboundResult
	receive := func(q repo.Queries) error {
		var err error
		out, err = r.receive(ctx, q, a.Scope(), acc, from, in, comment)
		return err
	}
	err = r.Store.InTx(ctx, receive)
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		// A concurrent first message from the same sender created the
		// contact; the second attempt finds it.
		err = r.Store.InTx(ctx, receive)
	}
	if err != nil {
		return nil, err
	}
	r.Events.Committed(ctx)
	return out, nil
}

// receive stores one inbound message with its contact and conversation, and
// records the events it causes, in order.
func (r *Service) receive(ctx context.Context, q repo.Queries, s repo.Scope, acc *repo.Account, from string, in model.SimulateInboundInput, comment bool) (*model.InboundResult, error) {
	now := r.Clock.Now()
	channel := in.Channel
	ct, optOut, err := r.customer(ctx, q, s, in, from, now)
	if err != nil {
		return nil, err
	}
	conv, changed, err := continued(ctx, q, s, ct, acc, comment)
	if err != nil {
		return nil, err
	}
	created := conv == nil
	if created {
		if conv, err = conversation.Start(ctx, q, s, acc, ct, comment, now); err != nil {
			return nil, fmt.Errorf("inbound: %w", err)
		}
		if channel == "email" && in.Subject != nil {
			conv.Subject = in.Subject
		}
	}
	conv.LastInboundAt = &now
	if err := conversation.Save(ctx, q, s, conv, ct, created, now); err != nil {
		return nil, fmt.Errorf("inbound: %w", err)
	}
	msg := &repo.Message{ID: repo.NewID("msg_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
		ConversationID: conv.ID, Channel: channel, Direction: "inbound", SenderType: "visitor",
		SenderName: &ct.Name, Type: "text", Text: in.Text, Status: "received", CreatedAt: now}
	if channel == "email" {
		if msg.Email, err = json.Marshal(model.EmailHeaders{From: from, To: []string{acc.Address}, Cc: []string{}, References: []string{}}); err != nil {
			return nil, fmt.Errorf("inbound: email headers: %w", err)
		}
	}
	if err := q.InsertMessage(ctx, msg); err != nil {
		return nil, err
	}
	convOut, msgOut := view.Conversation(conv), view.Message(msg)
	switch {
	case created:
		err = r.Events.Record(ctx, q, s, event.ConversationCreated, convOut, convOut)
	case changed != nil:
		err = r.Events.Record(ctx, q, s, event.ConversationUpdated, convOut, event.ConversationUpdate{Conversation: convOut, Changed: changed})
	}
	if err != nil {
		return nil, err
	}
	if err := r.Events.Record(ctx, q, s, event.MessageReceived, convOut, msgOut); err != nil {
		return nil, err
	}
	if optOut {
		if err := r.Events.Record(ctx, q, s, event.ContactUpdated, nil, event.ContactUpdate{Contact: view.Contact(ct), Changed: []string{"opt_outs"}}); err != nil {
			return nil, err
		}
	}
	return &model.InboundResult{Livemode: s.Livemode, Conversation: convOut, Message: msgOut}, nil
}

// customer finds or creates the sender's contact, marks it seen, and records
// a WhatsApp STOP as an opt-out (optOut says it changed now).
func (r *Service) customer(ctx context.Context, q repo.Queries, s repo.Scope, in model.SimulateInboundInput, from string, now time.Time) (ct *repo.Contact, optOut bool, err error) {
	name := from
	if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
		name = strings.TrimSpace(*in.Name)
	}
	ct, err = q.ContactBy(ctx, s, contact.IdentityColumn[in.Channel], from)
	newContact := errors.Is(err, repo.ErrNotFound)
	if err != nil && !newContact {
		return nil, false, err
	}
	if newContact {
		ct = contact.FromChannel(s, in.Channel, from, name, "captured", now)
	}
	ct.LastSeenAt = &now
	optOut = in.Channel == "whatsapp" && strings.EqualFold(strings.TrimSpace(*in.Text), "STOP") && !ct.OptOutWhatsapp
	if optOut {
		ct.OptOutWhatsapp = true
		ct.UpdatedAt = now
	}
	if newContact {
		if err := q.InsertContact(ctx, ct); err != nil {
			return nil, false, fmt.Errorf("inbound: insert contact: %w", err)
		}
		if err := r.Events.Record(ctx, q, s, event.ContactCreated, nil, view.Contact(ct)); err != nil {
			return nil, false, err
		}
	} else if err := q.UpdateContact(ctx, s, ct); err != nil {
		return nil, false, fmt.Errorf("inbound: update contact: %w", err)
	}

	return ct, optOut, nil
}

// continued is the conversation a new message of the customer joins: the
// latest on the account, reopened when closed (changed names what that
// changed), or nil when a new one starts.
func continued(ctx context.Context, q repo.Queries, s repo.Scope, ct *repo.Contact, acc *repo.Account, comment bool) (conv *repo.Conversation, changed []string, err error) {
	conv, err = q.LatestConversation(ctx, s, ct.ID, acc.Channel, acc.ID, comment)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return nil, nil, fmt.Errorf("inbound: latest conversation: %w", err)
	}
	// A closed website chat stays closed: the visitor starts a new one.
	// Other channels reopen the thread (decisions 5).
	if conv != nil && conv.Status == "closed" {
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
