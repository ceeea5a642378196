// Package conversation is the thread between a customer and a channel
// account: the one place a conversation is started (sends and inbound
// messages share it), the account a message runs on, reopening, and the
// conversations and messages API.
package conversation

import (
	"context"
	"errors"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what the conversations API reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	Conversation(ctx context.Context, s repo.Scope, id string) (*repo.Conversation, error)
	Conversations(ctx context.Context, s repo.Scope, f repo.ConversationFilter, p repo.Page) ([]repo.Conversation, error)
	Messages(ctx context.Context, s repo.Scope, conversationID string, p repo.Page, newestFirst bool) ([]repo.Message, error)
	Message(ctx context.Context, s repo.Scope, id string) (*repo.Message, error)
	Contact(ctx context.Context, s repo.Scope, id string) (*repo.Contact, error)
}

// AttachmentSigner gives attachments fresh links; files.Service is one.
type AttachmentSigner interface {
	SignAttachments(msgs ...*model.Message)
}

// Service is the conversations and messages API.
type Service struct {
	Store   Store
	Clock   clock.Clock
	Events  event.Recorder
	Cursors cursor.Signer
	Files   AttachmentSigner
}

func conversationPosition(c repo.Conversation) repo.Position {
	return repo.Position{At: c.CreatedAt, ID: c.ID}
}

// List is GET /v1/conversations, newest first.
func (s *Service) List(ctx context.Context, filter *model.ConversationFilter, limit *int, after *string) (*model.ConversationPage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.Cursors.Page("conversations", limit, after)
	if err != nil {
		return nil, err
	}
	var f repo.ConversationFilter
	if filter != nil {
		if c := filter.Channel; c != nil {
			if !channels.Valid(*c) {
				return nil, apierr.New(apierr.InvalidRequest, "channel must be one of website, whatsapp, instagram, email.")
			}
			if err := a.CheckChannel(*c); err != nil {
				return nil, err
			}
			f.Channel = c
		}
		if status := filter.Status; status != nil {
			if *status != "open" && *status != "closed" {
				return nil, apierr.New(apierr.InvalidRequest, "status must be open or closed.")
			}
			f.Status = status
		}
		if w := filter.WebsiteID; w != nil {
			if err := a.CheckWebsite(*w); err != nil {
				return nil, err
			}
			f.WebsiteID = w
		}
		if u := filter.UpdatedSince; u != nil {
			since, err := contact.ParseSince(*u)
			if err != nil {
				return nil, err
			}
			f.UpdatedSince = &since
		}
	}
	rows, err := s.Store.Conversations(ctx, a.Scope(), f, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, "conversations", rows, p, conversationPosition)
	return &model.ConversationPage{Items: view.Map(rows, view.Conversation), HasMore: more, NextCursor: next}, nil
}

// OfContact is contactConversations: a contact's conversations, newest
// first (the inbox's contact sidebar).
func (s *Service) OfContact(ctx context.Context, contactID string, limit *int, after *string) (*model.ConversationPage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	list := "contact-conversations:" + contactID
	p, err := s.Cursors.Page(list, limit, after)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.Contact(ctx, a.Scope(), contactID); err != nil {
		return nil, view.NotFound(err, apierr.ContactNotFound, "contact", contactID)
	}
	rows, err := s.Store.Conversations(ctx, a.Scope(), repo.ConversationFilter{ContactID: &contactID}, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, list, rows, p, conversationPosition)
	return &model.ConversationPage{Items: view.Map(rows, view.Conversation), HasMore: more, NextCursor: next}, nil
}

// Get is GET /v1/conversations/{id}.
func (s *Service) Get(ctx context.Context, id string) (*model.Conversation, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.Store.Conversation(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
	}
	return view.Conversation(c), nil
}

// Messages is GET /v1/conversations/{id}/messages, oldest first; newest
// first when newestFirst is true, its cursors then paging back in time (a
// list of its own, so one order's cursor is refused by the other).
func (s *Service) Messages(ctx context.Context, conversationID string, limit *int, after *string, newestFirst *bool) (*model.MessagePage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	desc := newestFirst != nil && *newestFirst
	list := "messages:" + conversationID
	if desc {
		list = "messages-newest:" + conversationID
	}
	p, err := s.Cursors.Page(list, limit, after)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.Conversation(ctx, a.Scope(), conversationID); err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	rows, err := s.Store.Messages(ctx, a.Scope(), conversationID, p, desc)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, list, rows, p, func(m repo.Message) repo.Position { return repo.Position{At: m.CreatedAt, ID: m.ID} })
	items := view.Map(rows, view.Message)
	s.Files.SignAttachments(items...)
	return &model.MessagePage{Items: items, HasMore: more, NextCursor: next}, nil
}

// ReopenMode is the mode of a conversation that opens again: the AI, unless
// the service's processing is off for its channel account.
func ReopenMode(ctx context.Context, q Accounts, c *repo.Conversation) (string, error) {
	acc, err := q.Account(ctx, c.WorkspaceID, c.Channel, c.AccountID)
	if err != nil {
		return "", err
	}
	processing, err := Processing(ctx, q, acc)
	if err != nil || processing {
		return "ai", err
	}
	return "external", nil
}

// Processing says whether the service itself handles an account's messages;
// for email that is set per domain.
func Processing(ctx context.Context, q Accounts, acc *repo.Account) (bool, error) {
	if acc.Channel == "email" {
		domain := acc.Address[strings.LastIndex(acc.Address, "@")+1:]
		d, err := q.EmailDomain(ctx, acc.WorkspaceID, domain)
		if errors.Is(err, repo.ErrNotFound) {
			return true, nil // mail of a domain the workspace never configured is processed
		}
		if err != nil {
			return false, err
		}
		return d.Processing, nil
	}
	return acc.Processing, nil
}

// Message is GET /v1/messages/{id}: the message with its current status.
func (s *Service) Message(ctx context.Context, id string) (*model.Message, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.Store.Message(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.MessageNotFound, "message", id)
	}
	out := view.Message(m)
	s.Files.SignAttachments(out)
	return out, nil
}
