package inbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Message is one inbound customer message, simulated or from a provider.
type Message struct {
	Channel string
	// From is the customer's identity on the channel, normalised (a phone
	// in E.164, an email address, an Instagram-scoped user id; on WhatsApp
	// the business-scoped user id when Meta withholds the phone).
	From string
	// UserID is the WhatsApp business-scoped user id, stored on the contact
	// beside its phone.
	UserID string
	// Name is the customer's name for a new contact ("" uses From).
	Name string
	// Type is the message's type ("" is text); Text its words.
	Type string
	Text *string
	// Subject is an email's, for a new conversation.
	Subject *string
	// At is when the customer wrote (the provider's timestamp), the
	// window's last_inbound_at; zero is now.
	At time.Time
	// Comment: an Instagram comment (comment conversations).
	Comment bool
	// Thread finds the conversation the message joins (locked), ErrNotFound
	// to start one; nil joins the customer's latest on the account.
	Thread func(ctx context.Context, q repo.Queries, ct *repo.Contact) (*repo.Conversation, error)
	// Files are stored as the message's attachments.
	Files []File
	// Stored runs in the transaction once the message is stored (the
	// provider ids that make a retried webhook a no-op).
	Stored func(ctx context.Context, q repo.Queries, msg *repo.Message) error
	// Rich is what the message carries besides its text (the provider's
	// id, the quoted message, attribution, the object of its type). The
	// message_id of ReplyTo and Reaction is looked up here from their
	// provider_message_id.
	Rich model.Rich
	// Echo, when set, is a message the account itself sent outside the
	// service (Meta's echo of a send from the Instagram app): it is stored
	// outbound and sent, with message.sent; it changes neither the window
	// nor the customer's last_seen_at, and reopens nothing.
	Echo *Echo
}

// Echo is how a message the account sent elsewhere is stored.
type Echo struct {
	// SenderType is sender.type ("instagram_app").
	SenderType string
	// ProviderMessageID is delivery.provider_message_id.
	ProviderMessageID string
}

// File is an attachment of an inbound message. Provider media also keeps
// what the provider said of it; Failed (why the download failed) keeps the
// file without bytes, to be fetched again.
type File struct {
	Filename    string
	ContentType string
	Content     []byte

	ProviderMediaID string
	MimeType        string
	SHA256          string
	Caption         string
	Failed          string
}

// Receive stores one inbound message with its contact and conversation in a
// transaction, and announces its events once committed.
func (s *Service) Receive(ctx context.Context, scope repo.Scope, acc *repo.Account, m Message) (*model.InboundResult, error) {
	var out *model.InboundResult
	receive := func(q repo.Queries) error {
		var err error
		out, err = s.receive(ctx, q, scope, acc, m)
		return err
	}
	err := s.Store.InTx(ctx, receive)
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		// A concurrent first message from the same sender created the
		// contact; the second attempt finds it.
		err = s.Store.InTx(ctx, receive)
	}
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return out, nil
}

// store inserts the message with its files, then runs m.Stored.
func (s *Service) store(ctx context.Context, q repo.Queries, scope repo.Scope, acc *repo.Account, conv *repo.Conversation, ct *repo.Contact, m Message, now time.Time) (*repo.Message, error) {
	msgType := m.Type
	if msgType == "" {
		msgType = "text"
	}
	msg := &repo.Message{ID: repo.NewID("msg_", now), WorkspaceID: scope.WorkspaceID, Livemode: scope.Livemode,
		ConversationID: conv.ID, Channel: m.Channel, Direction: "inbound", SenderType: "visitor",
		SenderName: &ct.Name, Type: msgType, Text: m.Text, Status: "received", CreatedAt: now}
	var err error
	if m.Echo != nil {
		msg.Direction, msg.SenderType, msg.SenderName, msg.Status = "outbound", m.Echo.SenderType, nil, "sent"
		sentAt := model.NewTimestamp(now)
		if !m.At.IsZero() {
			sentAt = model.NewTimestamp(m.At)
		}
		if msg.Delivery, err = json.Marshal(model.Delivery{ProviderMessageID: &m.Echo.ProviderMessageID, SentAt: &sentAt}); err != nil {
			return nil, fmt.Errorf("inbound: delivery: %w", err)
		}
	}
	if m.Channel == "email" {
		if msg.Email, err = json.Marshal(model.EmailHeaders{From: m.From, To: []string{acc.Address}, Cc: []string{}, References: []string{}}); err != nil {
			return nil, fmt.Errorf("inbound: email headers: %w", err)
		}
	}
	if msg.Content, err = content(ctx, q, scope, m); err != nil {
		return nil, err
	}
	var atts []*model.Attachment
	for _, f := range m.Files {
		atts = append(atts, attachment(f, repo.NewID("file_", now)))
	}
	if atts != nil {
		if msg.Attachments, err = json.Marshal(atts); err != nil {
			return nil, fmt.Errorf("inbound: attachments: %w", err)
		}
	}
	if err := q.InsertMessage(ctx, msg); err != nil {
		return nil, err
	}
	for i, f := range m.Files {
		file := &repo.File{ID: atts[i].ID, WorkspaceID: scope.WorkspaceID, Livemode: scope.Livemode, Filename: f.Filename,
			ContentType: f.ContentType, Size: len(f.Content), Content: f.Content, MessageID: &msg.ID, CreatedAt: now}
		if file.Content == nil {
			file.Content = []byte{}
		}
		if f.ProviderMediaID != "" {
			file.ProviderMediaID = &f.ProviderMediaID
		}
		if err := q.InsertFile(ctx, file); err != nil {
			return nil, fmt.Errorf("inbound: store attachment: %w", err)
		}
	}
	if m.Stored != nil {
		if err := m.Stored(ctx, q, msg); err != nil {
			return nil, err
		}
	}
	return msg, nil
}
