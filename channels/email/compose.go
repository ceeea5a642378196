// Package email is the email channel's provider side: outbound mail built
// with go-message, signed with go-msgauth's DKIM and handed to the operator's
// SMTP relay with go-smtp. It speaks SMTP and MIME and nothing
// else; every channel rule was checked before Send is called.
package email

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/msgsvc/msgsvc/channels"
)

// MessageID is the Message-ID (without angle brackets) of an outbound
// message: {msg_id}@{domain}. Inbound replies name it in In-Reply-To.
func MessageID(msgID, domain string) string { return msgID + "@" + domain }

// BounceAddress is the envelope sender of an outbound message,
// bounces+{msg_id}@{return path domain}, so that a bounce names the message
// it is about.
func BounceAddress(msgID, domain string) string { return "bounces+" + msgID + "@" + domain }

// Compose builds the mail of an outbound message: the headers docs/email.md
// lists,
// multipart/mixed holding multipart/alternative (text, and HTML when given)
// and the attachments. It is not signed yet.
func Compose(m *channels.Message, date time.Time) ([]byte, error) {
	e := m.Email
	if e == nil {
		return nil, fmt.Errorf("email: message %s has no email headers", m.ID)
	}
	if e.From == "" || len(e.To) == 0 || e.Domain == "" {
		return nil, fmt.Errorf("email: message %s needs From, To and a sending domain", m.ID)
	}
	var h mail.Header
	h.SetAddressList("From", []*mail.Address{{Address: e.From}})
	h.SetAddressList("To", addresses(e.To))
	if len(e.Cc) > 0 {
		h.SetAddressList("Cc", addresses(e.Cc))
	}
	h.SetSubject(e.Subject)
	h.SetDate(date)
	h.SetMessageID(MessageID(m.ID, e.Domain))
	if e.InReplyTo != "" {
		h.SetMsgIDList("In-Reply-To", []string{e.InReplyTo})
	}
	if len(e.References) > 0 {
		h.SetMsgIDList("References", e.References)
	}
	if e.UnsubscribeURL != "" {
		h.Set("List-Unsubscribe", "<"+e.UnsubscribeURL+">")
		h.Set("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	if e.AutoReplied {
		h.Set("Auto-Submitted", "auto-replied")
	}
	h.Set("MIME-Version", "1.0")
	var buf bytes.Buffer
	w, err := mail.CreateWriter(&buf, h)
	if err != nil {
		return nil, fmt.Errorf("email: create writer: %w", err)
	}
	if err := writeBody(w, m); err != nil {
		return nil, err
	}
	for _, f := range m.Attachments {
		if err := writeAttachment(w, f); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("email: close: %w", err)
	}
	return buf.Bytes(), nil
}

func addresses(list []string) []*mail.Address {
	out := make([]*mail.Address, len(list))
	for i, a := range list {
		out[i] = &mail.Address{Address: a}
	}
	return out
}

// writeBody writes the multipart/alternative part: the text (given, or made
// from the HTML) and the HTML when there is one.
func writeBody(w *mail.Writer, m *channels.Message) error {
	text := ""
	switch {
	case m.Text != nil:
		text = *m.Text
	case m.HTML != nil:
		text = HTMLToText(*m.HTML)
	}
	alt, err := w.CreateInline()
	if err != nil {
		return fmt.Errorf("email: alternative part: %w", err)
	}
	if err := inlinePart(alt, "text/plain", text); err != nil {
		return err
	}
	if m.HTML != nil {
		if err := inlinePart(alt, "text/html", *m.HTML); err != nil {
			return err
		}
	}
	if err := alt.Close(); err != nil {
		return fmt.Errorf("email: close alternative part: %w", err)
	}
	return nil
}

func inlinePart(alt *mail.InlineWriter, contentType, body string) error {
	var h mail.InlineHeader
	h.SetContentType(contentType, map[string]string{"charset": "utf-8"})
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	pw, err := alt.CreatePart(h)
	if err != nil {
		return fmt.Errorf("email: %s part: %w", contentType, err)
	}
	if _, err := io.WriteString(pw, body); err != nil {
		return fmt.Errorf("email: %s part: %w", contentType, err)
	}
	return pw.Close()
}

func writeAttachment(w *mail.Writer, f channels.File) error {
	var h mail.AttachmentHeader
	ctype := f.ContentType
	if _, _, err := mime.ParseMediaType(ctype); err != nil || ctype == "" {
		ctype = "application/octet-stream"
	}
	h.SetContentType(ctype, nil)
	h.SetFilename(strings.ReplaceAll(f.Filename, "\"", ""))
	h.Set("Content-Transfer-Encoding", "base64")
	aw, err := w.CreateAttachment(h)
	if err != nil {
		return fmt.Errorf("email: attachment %s: %w", f.ID, err)
	}
	if _, err := aw.Write(f.Content); err != nil {
		return fmt.Errorf("email: attachment %s: %w", f.ID, err)
	}
	return aw.Close()
}
