// Package view turns stored rows into the API's objects, the same for REST,
// GraphQL and event payloads.
package view

import (
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Conversation is the API object of a stored conversation.
func Conversation(c *repo.Conversation) *model.Conversation {
	tags := []string(c.Tags)
	if tags == nil {
		tags = []string{}
	}
	return &model.Conversation{
		ID: c.ID, Object: "conversation", Channel: c.Channel, WebsiteID: c.WebsiteID,
		Status: c.Status, Mode: c.Mode, Subject: c.Subject,
		Contact: model.ConversationContact{
			Name: c.ContactName, Email: c.ContactEmail, Phone: c.ContactPhone, ExternalID: c.ContactExternalID,
		},
		AssignedAgentID: c.AssignedAgentID, Tags: tags, IntegrationReplies: c.IntegrationReplies,
		MessageCount: c.MessageCount, CreatedAt: model.NewTimestamp(c.CreatedAt),
		LastMessageAt: model.NewTimestamp(c.LastMessageAt),
		ContactID:     c.ContactID, AccountID: c.AccountID, Livemode: c.Livemode, IsComment: c.IsComment,
	}
}

// Message is the API object of a stored message. A stored JSON column that
// does not decode is logged and left out, never answered half-read.
func Message(m *repo.Message) *model.Message {
	out := &model.Message{
		ID: m.ID, Object: "message", ConversationID: m.ConversationID, Channel: m.Channel,
		Direction: m.Direction, Sender: model.MessageSender{Type: m.SenderType, Name: m.SenderName},
		Type: m.Type, Text: m.Text, HTML: m.HTML, HTMLRaw: m.HTMLRaw, Status: m.Status,
		Attachments: []*model.Attachment{}, CreatedAt: model.NewTimestamp(m.CreatedAt), Livemode: m.Livemode,
		Deleted: m.Deleted,
	}
	if len(m.Email) > 0 && string(m.Email) != "null" {
		out.Email = &model.EmailHeaders{}
		decode(m.ID, "email", m.Email, out.Email)
		if out.Email.Warnings == nil {
			out.Email.Warnings = []model.EmailWarning{}
		}
	}
	if len(m.Attachments) > 0 {
		decode(m.ID, "attachments", m.Attachments, &out.Attachments)
	}
	if len(m.Delivery) > 0 && string(m.Delivery) != "null" {
		out.Delivery = &model.Delivery{}
		decode(m.ID, "delivery", m.Delivery, out.Delivery)
	}
	if len(m.Content) > 0 && string(m.Content) != "null" {
		decode(m.ID, "content", m.Content, &out.Rich)
	}
	if out.ProviderMessageID == nil && out.Delivery != nil {
		out.ProviderMessageID = out.Delivery.ProviderMessageID
	}
	return out
}

// Contact is the API object of a stored contact.
func Contact(c *repo.Contact) *model.Contact {
	out := &model.Contact{
		ID: c.ID, Object: "contact", Name: c.Name, Email: c.Email, Phone: c.Phone,
		InstagramUserID: c.InstagramUserID, WhatsappUserID: c.WhatsAppUserID,
		OptOuts:          model.OptOuts{Whatsapp: c.OptOutWhatsapp, Email: c.OptOutEmail, Instagram: c.OptOutInstagram},
		MarketingOptOuts: model.MarketingOptOuts{Whatsapp: c.MarketingOptOutWhatsapp},
		FirstSeenChannel: c.FirstSeenChannel, Source: c.Source, CreatedAt: model.NewTimestamp(c.CreatedAt),
		LastSeenAt: model.TimestampPtr(c.LastSeenAt), ExternalID: c.ExternalID, Livemode: c.Livemode,
	}
	if len(c.EmailSuppressed) > 0 && string(c.EmailSuppressed) != "null" {
		j := model.JSON(c.EmailSuppressed)
		out.EmailSuppressed = &j
	}
	return out
}

// Map applies f to each element of in.
func Map[T, U any](in []T, f func(*T) U) []U {
	out := make([]U, len(in))
	for i := range in {
		out[i] = f(&in[i])
	}
	return out
}

// decode reads a stored JSON column; the service wrote it, so a failure is
// logged as a bug rather than failing the read.
func decode(id, column string, raw []byte, into any) {
	if err := json.Unmarshal(raw, into); err != nil {
		slog.Error("view: decode stored column", "message_id", id, "column", column, "err", err)
	}
}

// NotFound turns repo.ErrNotFound into the resource's not-found code and
// passes other errors through.
func NotFound(err error, code apierr.Code, what, id string) error {
	if errors.Is(err, repo.ErrNotFound) {
		return apierr.New(code, "No %s %s.", what, id)
	}
	return err
}

// OrEmpty is s, or an empty list for nil, so JSON shows [] and not null.
func OrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// EqualPtr says whether two optional values are equal: both unset, or both
// set to the same value.
func EqualPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// AccountCheck is a recorded provider check as the API shows it.
func AccountCheck(c *repo.AccountCheck) *model.AccountCheck {
	if c == nil {
		return nil
	}
	return &model.AccountCheck{Status: c.Status, Error: c.Error, At: model.NewTimestamp(c.At)}
}
