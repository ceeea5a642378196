package inbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// EmailIn is an inbound mail for one email account, parsed.
type EmailIn struct {
	From, FromName string
	To, Cc         []string
	Subject        string
	Text           string
	HTML           *string
	MessageID      string
	InReplyTo      []string
	References     []string
	// OurIDs are the msg_ ids named by In-Reply-To or References as
	// <{msg_id}@{domain}> of our own outbound mail.
	OurIDs []string
	Files  []EmailFile
	// AutoSubmitted: a machine sent it (an out-of-office, a list); it is
	// stored like any mail but the AI never answers it.
	AutoSubmitted bool
	// Warnings say what the parser repaired (email.warnings); those of the
	// display (remote images withheld) join them.
	Warnings []model.EmailWarning
}

// EmailFile is an attachment of an inbound mail.
type EmailFile struct {
	Filename, ContentType string
	// ContentID names the part for the HTML's cid: references.
	ContentID string
	Content   []byte
}

// ErrDuplicate says the scope already has a message with the mail's
// Message-ID (the same mail delivered twice).
var ErrDuplicate = errors.New("inbound: this mail is already stored")

// errStoredMeanwhile: a concurrent delivery of the same mail stored it
// while this one was being stored.
var errStoredMeanwhile = errors.New("inbound: the same mail was stored meanwhile by another delivery; processed again")

// ReceiveEmail stores an inbound mail as a message of acc's workspace in the
// live mode: In-Reply-To or References naming a Message-ID of the workspace
// join that conversation (reopening it) when the sender takes part in it;
// otherwise a new conversation with the subject. The caller commits q and calls Events.Committed.
func (s *Service) ReceiveEmail(ctx context.Context, q repo.Queries, acc *repo.Account, in EmailIn) (*model.InboundResult, error) {
	scope := repo.Scope{WorkspaceID: acc.WorkspaceID, Livemode: true}
	now := s.Clock.Now()
	if in.MessageID != "" {
		if _, err := q.ThreadByHeaderIDs(ctx, scope, []string{in.MessageID}, nil); err == nil {
			return nil, ErrDuplicate
		} else if !errors.Is(err, repo.ErrNotFound) {
			return nil, err
		}
	}
	ct, err := s.emailCustomer(ctx, q, scope, in)
	if err != nil {
		return nil, err
	}
	conv, changed, created, err := s.emailThread(ctx, q, scope, acc, ct, in)
	if err != nil {
		return nil, err
	}
	conv.LastInboundAt = &now
	if err := conversation.Save(ctx, q, scope, conv, ct, created, now); err != nil {
		return nil, fmt.Errorf("inbound: %w", err)
	}
	msg, err := s.emailMessage(ctx, q, scope, conv, ct, in)
	if err != nil {
		return nil, err
	}
	if in.MessageID != "" {
		fresh, err := q.InsertEmailMessageID(ctx, &repo.EmailMessageID{WorkspaceID: scope.WorkspaceID, Livemode: true,
			HeaderID: in.MessageID, MessageID: msg.ID, ConversationID: conv.ID, CreatedAt: now})
		if err != nil {
			return nil, err
		}
		if !fresh {
			// Another delivery of the mail committed it after the check
			// above: q holds this copy's rows, so it must roll back (not
			// ErrDuplicate, which the caller commits past); processed
			// again, the check finds the mail.
			return nil, errStoredMeanwhile
		}
	}
	convOut, msgOut := view.Conversation(conv), view.Message(msg)
	msgOut.AutoSubmitted = in.AutoSubmitted
	if err := s.conversationEvent(ctx, q, scope, convOut, created, changed); err != nil {
		return nil, err
	}
	if err := s.Events.Record(ctx, q, scope, event.MessageReceived, convOut, msgOut); err != nil {
		return nil, err
	}
	return &model.InboundResult{Livemode: true, Conversation: convOut, Message: msgOut}, nil
}

// emailCustomer finds or captures the sender's contact.
func (s *Service) emailCustomer(ctx context.Context, q repo.Queries, scope repo.Scope, in EmailIn) (*repo.Contact, error) {
	now := s.Clock.Now()
	ct, err := q.ContactBy(ctx, scope, contact.IdentityColumn["email"], in.From)
	if err == nil {
		ct.LastSeenAt = &now
		return ct, q.UpdateContact(ctx, scope, ct)
	}
	if !errors.Is(err, repo.ErrNotFound) {
		return nil, err
	}
	name := strings.TrimSpace(in.FromName)
	if name == "" {
		name = in.From
	}
	ct = contact.FromChannel(scope, "email", in.From, name, "captured", now)
	ct.LastSeenAt = &now
	if err := q.InsertContact(ctx, ct); err != nil {
		return nil, fmt.Errorf("inbound: insert contact: %w", err)
	}
	return ct, s.Events.Record(ctx, q, scope, event.ContactCreated, nil, view.Contact(ct))
}

// emailThread is the conversation the mail joins (reopened when closed;
// changed names what that changed), or a new one with the subject. Only a
// participant joins by naming a Message-ID (repo.ThreadByReferences): the
// ids are in every copy of a mail, and a stranger who read them must not
// write into that customer's conversation.
func (s *Service) emailThread(ctx context.Context, q repo.Queries, scope repo.Scope, acc *repo.Account, ct *repo.Contact, in EmailIn) (conv *repo.Conversation, changed []string, created bool, err error) {
	ids := append(append([]string{}, in.InReplyTo...), in.References...)
	if len(ids) > 0 || len(in.OurIDs) > 0 {
		var id string
		id, err = q.ThreadByReferences(ctx, scope, ids, in.OurIDs, strings.ToLower(in.From), ct.ID)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, nil, false, err
		}
		if err == nil {
			if conv, err = q.LockConversation(ctx, scope, id); err != nil {
				return nil, nil, false, err
			}
			if conv.Status != "closed" {
				return conv, nil, false, nil
			}
			mode, err := conversation.ReopenMode(ctx, q, conv)
			if err != nil {
				return nil, nil, false, err
			}
			changed = []string{"status"}
			if mode != conv.Mode {
				changed = append(changed, "mode")
			}
			conv.Status, conv.Mode = "open", mode
			return conv, changed, false, nil
		}
	}
	if conv, err = conversation.Start(ctx, q, scope, acc, ct, false, s.Clock.Now()); err != nil {
		return nil, nil, false, fmt.Errorf("inbound: %w", err)
	}
	if in.Subject != "" {
		conv.Subject = &in.Subject
	}
	return conv, nil, true, nil
}

// emailMessage stores the message with its attachments as files; the html
// shown is made from html_raw (Display), its cid: images pointing at those
// files.
func (s *Service) emailMessage(ctx context.Context, q repo.Queries, scope repo.Scope, conv *repo.Conversation, ct *repo.Contact, in EmailIn) (*repo.Message, error) {
	now := s.Clock.Now()
	msg := &repo.Message{ID: repo.NewID("msg_", now), WorkspaceID: scope.WorkspaceID, Livemode: true,
		ConversationID: conv.ID, Channel: "email", Direction: "inbound", SenderType: "visitor",
		SenderName: &ct.Name, Type: "text", Text: &in.Text, Status: "received", CreatedAt: now}
	atts, inline, err := s.emailFiles(ctx, q, scope, msg.ID, in.Files)
	if err != nil {
		return nil, err
	}
	warnings := in.Warnings
	if in.HTML != nil {
		if s.Display == nil {
			return nil, errors.New("inbound: no display is configured to show an HTML mail")
		}
		var safe string
		safe, warnings = s.Display.Show(*in.HTML, inline, warnings)
		msg.HTML, msg.HTMLRaw = &safe, in.HTML
	}
	var inReplyTo *string
	if len(in.InReplyTo) > 0 {
		inReplyTo = &in.InReplyTo[0]
	}
	headers := model.EmailHeaders{From: in.From, To: view.OrEmpty(in.To), Cc: view.OrEmpty(in.Cc),
		InReplyTo: inReplyTo, References: view.OrEmpty(in.References), Warnings: append([]model.EmailWarning{}, warnings...)}
	if msg.Email, err = json.Marshal(headers); err != nil {
		return nil, fmt.Errorf("inbound: email headers: %w", err)
	}
	if msg.Attachments, err = json.Marshal(atts); err != nil {
		return nil, err
	}
	if msg.Content, err = emailRich(ctx, q, scope, in); err != nil {
		return nil, err
	}
	if in.Text == "" && len(atts) > 0 {
		msg.Type = "attachment"
	}
	return msg, q.InsertMessage(ctx, msg)
}

// emailFiles stores the attachments as files of the message; inline maps
// each Content-ID to its file's reference in html (files.InlineRef).
func (s *Service) emailFiles(ctx context.Context, q repo.Queries, scope repo.Scope, msgID string, in []EmailFile) ([]*model.Attachment, map[string]string, error) {
	now := s.Clock.Now()
	atts := []*model.Attachment{}
	inline := map[string]string{}
	for _, f := range in {
		id := repo.NewID("file_", now)
		file := &repo.File{ID: id, WorkspaceID: scope.WorkspaceID, Livemode: true, Filename: f.Filename,
			ContentType: f.ContentType, Size: len(f.Content), Content: f.Content, MessageID: &msgID, CreatedAt: now}
		if err := q.InsertFile(ctx, file); err != nil {
			return nil, nil, fmt.Errorf("inbound: store attachment: %w", err)
		}
		atts = append(atts, &model.Attachment{ID: id, Filename: f.Filename, ContentType: f.ContentType, Size: len(f.Content)})
		if _, taken := inline[f.ContentID]; f.ContentID != "" && !taken {
			inline[f.ContentID] = files.InlineRef(id)
		}
	}
	return atts, inline, nil
}
