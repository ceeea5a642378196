package seed

import (
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// contacts writes the contacts, each in its mode.
func (s *workspaceSeed) contacts() error {
	for i, c := range s.w.Contacts {
		p := fmt.Sprintf(".contacts[%d]", i)
		if !strings.HasPrefix(c.ID, "ct_") {
			return s.bad(p+".id", "must start with ct_")
		}
		email, phone, err := contact.NormalizeIdentity(c.Email, c.Phone)
		if err != nil {
			field, e := ".email", apierr.New(apierr.InvalidEmail, "is not an email address")
			if ae, ok := apierr.As(err); ok {
				e = ae
			}
			if e.Code == apierr.InvalidPhone {
				field = ".phone"
			}
			return s.bad(p+field, "%s", e.Message)
		}
		s.contactMode[c.ID] = c.Livemode
		row := &repo.Contact{ID: c.ID, WorkspaceID: s.w.ID, Livemode: c.Livemode, Name: c.Name, Email: email,
			Phone: phone, InstagramUserID: c.InstagramUserID, OptOutWhatsapp: c.OptOuts.Whatsapp,
			OptOutEmail: c.OptOuts.Email, OptOutInstagram: c.OptOuts.Instagram, Source: "captured",
			CreatedAt: s.now, UpdatedAt: s.now}
		if err := s.q.UpsertContact(s.ctx, row); err != nil {
			return s.wrap(p, err)
		}
	}
	return nil
}

// conversations writes the conversations with their messages and past timestamps.
func (s *workspaceSeed) conversations() error {
	for i, c := range s.w.Conversations {
		p := fmt.Sprintf(".conversations[%d]", i)
		if !strings.HasPrefix(c.ID, "conv_") {
			return s.bad(p+".id", "must start with conv_")
		}
		if !channels.Valid(c.Channel) {
			return s.bad(p+".channel", "must be website, whatsapp, instagram or email")
		}
		if s.accounts[c.AccountID] != c.Channel {
			return s.bad(p+".account_id", "names no %s account of this workspace", c.Channel)
		}
		if c.ContactID != nil {
			mode, ok := s.contactMode[*c.ContactID]
			if !ok {
				return s.bad(p+".contact_id", "names no contact of this fixture workspace")
			}
			if mode != c.Livemode {
				return s.bad(p+".contact_id", "names a contact of the other mode")
			}
		}
		status, mode := orDefault(c.Status, "open"), orDefault(c.Mode, "ai")
		if !oneOf(status, []string{"open", "closed"}) {
			return s.bad(p+".status", "must be open or closed")
		}
		if !oneOf(mode, []string{"ai", "queued_for_human", "human", "external"}) {
			return s.bad(p+".mode", "must be ai, queued_for_human, human or external")
		}
		created := s.now
		if c.CreatedAt != nil {
			created = c.CreatedAt.Time
		}
		acc, err := s.q.Account(s.ctx, s.w.ID, c.Channel, c.AccountID)
		if err != nil {
			return err
		}
		conv := &repo.Conversation{ID: c.ID, WorkspaceID: s.w.ID, Livemode: c.Livemode, Channel: c.Channel,
			AccountID: c.AccountID, WebsiteID: acc.WebsiteID, ContactID: c.ContactID, Status: status, Mode: mode,
			Subject: c.Subject, AssignedAgentID: c.AssignedAgentID, Tags: view.OrEmpty(c.Tags), IntegrationReplies: true,
			MessageCount: len(c.Messages), CreatedAt: created, UpdatedAt: created, LastMessageAt: created}
		msgs, err := s.messages(p, conv, c.Messages)
		if err != nil {
			return err
		}
		conv.UpdatedAt = conv.LastMessageAt
		if err := s.q.UpsertConversation(s.ctx, conv); err != nil {
			return s.wrap(p+".id", err)
		}
		for j, m := range msgs {
			if err := s.q.UpsertMessage(s.ctx, m); err != nil {
				return s.wrap(fmt.Sprintf("%s.messages[%d].id", p, j), err)
			}
		}
		if err := s.q.RecountConversation(s.ctx, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// messages validates a conversation's messages and moves its last message
// and last inbound times along.
func (s *workspaceSeed) messages(p string, conv *repo.Conversation, in []FixtureMessage) ([]*repo.Message, error) {
	var msgs []*repo.Message
	for j, m := range in {
		mp := fmt.Sprintf("%s.messages[%d]", p, j)
		if !strings.HasPrefix(m.ID, "msg_") {
			return nil, s.bad(mp+".id", "must start with msg_")
		}
		if m.Direction != "inbound" && m.Direction != "outbound" {
			return nil, s.bad(mp+".direction", "must be inbound or outbound")
		}
		at := conv.CreatedAt
		if m.CreatedAt != nil {
			at = m.CreatedAt.Time
		}
		if at.Before(conv.CreatedAt) {
			return nil, s.bad(mp+".created_at", "is before the conversation's created_at")
		}
		msg := &repo.Message{ID: m.ID, WorkspaceID: s.w.ID, Livemode: conv.Livemode, ConversationID: conv.ID,
			Channel: conv.Channel, Direction: m.Direction, SenderType: "visitor", Type: "text", Text: m.Text,
			Status: "received", Attachments: repo.JSONB(`[]`), CreatedAt: at}
		if m.Direction == "outbound" {
			msg.SenderType, msg.Status = "api", orDefault(m.Status, "delivered")
		} else {
			conv.LastInboundAt = later(conv.LastInboundAt, at)
		}
		if at.After(conv.LastMessageAt) {
			conv.LastMessageAt = at
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}
