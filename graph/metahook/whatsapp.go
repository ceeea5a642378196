package metahook

import (
	"context"
	"errors"
	"fmt"
	"github.com/msgsvc/msgsvc/channels"
	"log/slog"
	"mime"
	"strings"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// message takes one inbound WhatsApp message in as message.received: the
// contact by phone with the profile name, the conversation found, reopened
// or started, the window's last_inbound_at the message's own time, media
// downloaded and checked against its sha256. A retried wamid changes
// nothing.
func (s *Service) message(ctx context.Context, t target, m *meta.WhatsAppMessage) error {
	from, userID, err := customerOf(m.From, m.UserID)
	if err != nil && m.System != nil {
		// A system notice that names no customer changes no one.
		slog.Info("meta hook: system message without a customer; ignored", "wamid", m.ID, "type", m.System.Type)
		return nil
	}
	if err != nil {
		return err
	}
	scope := repo.Scope{WorkspaceID: t.acc.WorkspaceID, Livemode: true}
	msgType, rich := richOf(m)
	name := m.ProfileName
	if name == "" {
		name = m.Username
	}
	in := inbound.Message{Channel: "whatsapp", From: from, UserID: userID, Name: name, Type: msgType, Rich: rich, At: m.Timestamp,
		Stored: func(ctx context.Context, q repo.Queries, msg *repo.Message) error {
			// Meta retries a webhook: the second copy of a wamid rolls back.
			fresh, err := q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: "whatsapp",
				ProviderID: m.ID, MessageID: msg.ID, Status: "received"})
			if err == nil && !fresh {
				err = errDuplicate
			}
			return err
		}}
	text := m.Text
	if m.Media != nil {
		// A retried hook whose message is stored already downloads nothing.
		if _, err := s.Store.ProviderMessageOn(ctx, scope, t.acc.ID, "whatsapp", m.ID); err == nil {
			slog.Info("meta hook: message already received", "wamid", m.ID)
			return nil
		} else if !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		in.Files = []inbound.File{s.media(ctx, t, scope, m)}
	}
	if text != "" {
		in.Text = &text
	}
	_, err = s.Inbound.Receive(ctx, scope, t.acc, in)
	if errors.Is(err, errDuplicate) {
		slog.Info("meta hook: message already received", "wamid", m.ID)
		err = nil
	}
	// Also for a message received before: what it says of the customer
	// may not have been applied (a crash or a failure in between), and
	// applying it again changes nothing.
	if err == nil && rich.System != nil {
		err = s.identityChanges(ctx, scope, from, m, rich.System)
	}
	return err
}

// customerOf is who a WhatsApp customer is: the phone in E.164 when Meta
// shares the wa_id, else the business-scoped user id (a customer with a
// username may have no phone in the webhook), and the user id besides.
func customerOf(waID, userID string) (from, user string, err error) {
	if waID == "" {
		if !channels.IsWhatsAppUserID(userID) {
			return "", "", fmt.Errorf("metahook: a WhatsApp message with neither a wa_id nor a business-scoped user id (user_id %q)", userID)
		}
		return userID, userID, nil
	}
	phone, err := contact.NormalizePhone("+" + strings.TrimPrefix(waID, "+"))
	if err != nil {
		return "", "", fmt.Errorf("metahook: wa_id %q: %w", waID, err)
	}
	if !channels.IsWhatsAppUserID(userID) {
		userID = ""
	}
	return phone, userID, nil
}

// errDuplicate is a wamid already received.
var errDuplicate = errors.New("metahook: the message was already received")

// media downloads a message's media, or reuses the bytes of a file of the
// scope already downloaded with that media id. A failure keeps the file without its
// bytes, with the provider's media id, MIME type, filename, sha256 and
// caption and why it failed, so POST /v1/files/{id}/refetch can fetch it
// again; the webhook is not retried for it.
func (s *Service) media(ctx context.Context, t target, scope repo.Scope, m *meta.WhatsAppMessage) inbound.File {
	md := m.Media
	f := inbound.File{ContentType: md.MimeType, ProviderMediaID: md.ID, MimeType: md.MimeType, SHA256: md.SHA256, Caption: md.Caption}
	if f.ContentType == "" {
		f.ContentType = "application/octet-stream"
	}
	f.Filename = mediaName(md.Filename, m.Type, f.ContentType)
	if stored, err := s.Store.StoredMedia(ctx, scope, md.ID); err == nil {
		// Downloaded (and checked) before: its bytes serve again.
		f.ContentType, f.Content = stored.ContentType, stored.Content
		f.Filename = mediaName(md.Filename, m.Type, f.ContentType)
		return f
	}
	if s.WhatsApp == nil {
		f.Failed = "media downloads are not configured"
		return f
	}
	got, err := s.WhatsApp.DownloadMedia(ctx, t.creds, md.ID, md.SHA256)
	if err != nil {
		slog.Warn("meta hook: media not downloaded; kept to fetch again", "wamid", m.ID, "media_id", md.ID, "err", err)
		f.Failed = err.Error()
		return f
	}
	if got.MimeType != "" {
		f.ContentType = got.MimeType
	}
	f.Filename, f.Content = mediaName(md.Filename, m.Type, f.ContentType), got.Content
	return f
}

// mediaName is the media's own filename, or one made of its kind and
// content type ("image.jpg").
func mediaName(filename, kind, contentType string) string {
	if filename != "" {
		return filename
	}
	if exts, _ := mime.ExtensionsByType(contentType); len(exts) > 0 {
		return kind + exts[0]
	}
	return kind
}

// identityChanges applies what a system message says of the customer's
// identity: a new number (user_changed_number) and a new business-scoped
// user id (user_changed_user_id, or one that comes with a new number).
func (s *Service) identityChanges(ctx context.Context, scope repo.Scope, from string, m *meta.WhatsAppMessage, sys *model.System) error {
	if sys.Kind == "user_changed_number" && m.From != "" {
		if err := s.changedNumber(ctx, scope, from, sys.NewWaID); err != nil {
			return err
		}
	}
	if m.System == nil || !channels.IsWhatsAppUserID(m.System.UserID) {
		return nil
	}
	who := from // after a number change, the contact has the new one
	if sys.Kind == "user_changed_number" && sys.NewWaID != "" {
		if newPhone, err := contact.NormalizePhone("+" + sys.NewWaID); err == nil {
			who = newPhone
		}
	}
	return s.changedUserID(ctx, scope, who, m.System.UserID)
}
