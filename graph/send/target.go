package send

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// sendTarget is where a send goes: the conversation (nil while a new one is
// still to be created), its channel account and its customer.
type sendTarget struct {
	conv *repo.Conversation
	// acc is nil when the key reaches no connected WhatsApp number, and for a
	// new email thread until the sender is checked.
	acc         *repo.Account
	contact     *repo.Contact
	newContact  bool
	lastInbound *time.Time
	files       map[string]*repo.File
	// comment is the comment a private reply answers.
	comment *repo.Message
	// commentID is the provider's id of the comment a reply in an Instagram
	// comment conversation answers (see commentRule).
	commentID string
	// liveMediaID is the live video of that comment, when it is a live
	// comment (live_comment.go).
	liveMediaID string
}

// lookups reads the conversation, contact and uploaded files a send names
// (404 conversation_not_found, contact_not_found; 400 file_not_found), then
// applies the key's restrictions (403). The conversation stays locked until
// the send commits, so concurrent sends to it are checked one at a time.
func (s *Service) lookups(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest) (*sendTarget, error) {
	scope := a.Scope()
	t := &sendTarget{files: map[string]*repo.File{}}
	in := req.in
	var err error
	if in.ConversationID != nil {
		// One statement locks the conversation and reads its account and
		// contact (nil when there is none), rather than a round trip each.
		if t.conv, t.acc, t.contact, err = q.LockConversationForSend(ctx, scope, *in.ConversationID); err != nil {
			return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", *in.ConversationID)
		}
		req.channel = t.conv.Channel
		if err := fieldsFit(req, t.conv); err != nil {
			return nil, err
		}
		if t.acc == nil {
			return nil, repo.ErrNotFound // what Account answers for an account that is gone
		}
		t.lastInbound = t.conv.LastInboundAt
	} else if in.ContactID != nil && a.CheckContacts() != nil {
		// Contacts belong to the whole workspace: a key limited to some
		// websites may not name one (known or not), or it would reach,
		// and read back, a customer of another website.
		return nil, a.CheckContacts()
	} else if err := s.lookupRecipient(ctx, q, scope, req, t); err != nil {
		return nil, err
	}
	if err := t.lookupFiles(ctx, q, scope, req); err != nil {
		return nil, err
	}
	if t.conv != nil {
		return t, nil // visible through the key's scope, so within its restrictions
	}
	if err := a.CheckChannel(req.channel); err != nil {
		return nil, err
	}
	return t, s.newConversationAccount(ctx, q, a, req, t)
}

// lookupRecipient finds the contact a new conversation is for: by
// contact_id, or by to (a contact is created when none has that address).
func (s *Service) lookupRecipient(ctx context.Context, q repo.Queries, scope repo.Scope, req *sendRequest, t *sendTarget) error {
	in := req.in
	if in.ContactID != nil {
		c, err := q.Contact(ctx, scope, *in.ContactID)
		if err != nil {
			return view.NotFound(err, apierr.ContactNotFound, "contact", *in.ContactID)
		}
		t.contact = c
		switch {
		case req.channel == "whatsapp" && c.Phone == nil && c.WhatsAppUserID == nil:
			return apierr.New(apierr.InvalidRequest, "Contact %s has no phone number or WhatsApp user id for WhatsApp.", c.ID)
		case req.channel == "instagram" && c.InstagramUserID == nil:
			return apierr.New(apierr.InvalidRequest, "Contact %s has no instagram_user_id.", c.ID)
		}
		return nil
	}
	column := contact.IdentityColumnOf(req.channel, req.to)
	c, err := q.ContactBy(ctx, scope, column, req.to)
	if !errors.Is(err, repo.ErrNotFound) {
		t.contact = c
		return err
	}
	// A new customer. The contact is written now, in the send's
	// transaction (a refusal rolls it back), so that a concurrent send to the
	// same address waits for this one and then finds its contact and
	// conversation instead of making a second of each.
	c = contact.FromChannel(scope, req.channel, req.to, req.to, "api", s.Clock.Now())
	inserted, err := q.InsertContactIfAbsent(ctx, c)
	if err != nil {
		return err
	}
	if !inserted {
		c, err = q.ContactBy(ctx, scope, column, req.to)
	}
	t.contact, t.newContact = c, inserted
	return err
}

// lookupFiles reads the uploaded files a send attaches.
func (t *sendTarget) lookupFiles(ctx context.Context, q repo.Queries, s repo.Scope, req *sendRequest) error {
	var ids []string
	for _, f := range req.files {
		if f.fileID != "" {
			ids = append(ids, f.fileID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := q.FilesByID(ctx, s, ids)
	if err != nil {
		return err
	}
	for i := range rows {
		t.files[rows[i].ID] = &rows[i]
	}
	for _, id := range ids {
		if t.files[id] == nil {
			return apierr.New(apierr.FileNotFound, "No uploaded file %s.", id)
		}
	}
	return nil
}

// newConversationAccount picks the account a new conversation runs on and,
// for WhatsApp and Instagram, continues the customer's open conversation on
// it rather than starting a second thread with the same person.
func (s *Service) newConversationAccount(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget) error {
	var err error
	switch req.channel {
	case "email":
		return nil // the sender (from) decides, under the channel rules
	case "whatsapp":
		if id := req.in.WhatsappAccountID; id != nil {
			t.acc, err = conversation.ChannelAccount(ctx, q, a, "whatsapp", "whatsapp_account_id", id)
		} else if len(req.numbers) == 1 {
			t.acc = &req.numbers[0]
		}
	case "instagram":
		t.acc, err = conversation.ChannelAccount(ctx, q, a, "instagram", "", nil)
	}
	if err != nil {
		return err
	}
	if t.acc == nil || t.contact == nil {
		return nil
	}
	scope := a.Scope()
	conv, err := q.LatestConversation(ctx, scope, t.contact.ID, req.channel, t.acc.ID, false)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	if conv != nil && conv.Status == "open" {
		t.conv = conv
	}
	t.lastInbound, err = q.LastInbound(ctx, scope, t.contact.ID, req.channel, t.acc.ID)
	return err
}
