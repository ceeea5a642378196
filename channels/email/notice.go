package email

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/emersion/go-message/mail"
)

// Notice is an email the service writes a person itself (an owner notice:
// a webhook endpoint switched off), plain text.
type Notice struct {
	From, To, Subject, Body string
	// MessageID is without angle brackets: {eml_id}@{MSGSVC_SMTP_HOSTNAME}.
	MessageID string
}

// ComposeNotice builds the mail of a notice: a single text/plain part,
// marked Auto-Submitted: auto-generated (RFC 3834) so that out-of-office
// responders leave it alone.
func ComposeNotice(n Notice, date time.Time) ([]byte, error) {
	var h mail.Header
	h.SetAddressList("From", []*mail.Address{{Name: "msgsvc", Address: n.From}})
	h.SetAddressList("To", []*mail.Address{{Address: n.To}})
	h.SetSubject(n.Subject)
	h.SetDate(date)
	h.SetMessageID(n.MessageID)
	h.Set("Auto-Submitted", "auto-generated")
	h.Set("MIME-Version", "1.0")
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	var buf bytes.Buffer
	w, err := mail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, fmt.Errorf("email: notice: %w", err)
	}
	if _, err := io.WriteString(w, n.Body); err != nil {
		return nil, fmt.Errorf("email: notice: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("email: notice: %w", err)
	}
	return buf.Bytes(), nil
}
