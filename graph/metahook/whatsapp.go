package metahook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"strings"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
)

// message takes one inbound WhatsApp message in as message.received: the
// contact by phone with the profile name, the conversation found, reopened
// or started, the window's last_inbound_at the message's own time, media
// downloaded and checked against its sha256. A retried wamid changes
// nothing.
func (s *Service) message(ctx context.Context, t target, m *meta.WhatsAppMessage) error {
	phone, err := contact.NormalizePhone("+" + strings.TrimPrefix(m.From, "+"))
	if err != nil {
		return fmt.Errorf("metahook: wa_id %q: %w", m.From, err)
	}
	scope := repo.Scope{WorkspaceID: t.acc.WorkspaceID, Livemode: true}
	in := inbound.Message{Channel: "whatsapp", From: phone, Name: m.ProfileName, Type: m.Type, At: m.Timestamp,
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
		file, note := s.media(ctx, t, m)
		if file != nil {
			in.Files = []inbound.File{*file}
		}
		if note != "" {
			text = strings.TrimSpace(text + "\n" + note)
		}
	}
	if text != "" {
		in.Text = &text
	}
	_, err = s.Inbound.Receive(ctx, scope, t.acc, in)
	if errors.Is(err, errDuplicate) {
		slog.Info("meta hook: message already received", "wamid", m.ID)
		return nil
	}
	return err
}

// errDuplicate is a wamid already received.
var errDuplicate = errors.New("metahook: the message was already received")

// media downloads a message's media; a failure keeps the message without
// it, with a note, and is not retried.
func (s *Service) media(ctx context.Context, t target, m *meta.WhatsAppMessage) (*inbound.File, string) {
	if s.WhatsApp == nil {
		return nil, "[media not downloaded]"
	}
	got, err := s.WhatsApp.DownloadMedia(ctx, t.creds, m.Media.ID, m.Media.SHA256)
	if err != nil {
		slog.Warn("meta hook: media not kept", "wamid", m.ID, "media_id", m.Media.ID, "err", err)
		return nil, "[the " + m.Type + " could not be downloaded]"
	}
	contentType := got.MimeType
	if contentType == "" {
		contentType = m.Media.MimeType
	}
	name := m.Media.Filename
	if name == "" {
		name = m.Type
		if exts, _ := mime.ExtensionsByType(contentType); len(exts) > 0 {
			name += exts[0]
		}
	}
	return &inbound.File{Filename: name, ContentType: contentType, Content: got.Content}, ""
}
