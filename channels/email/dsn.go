package email

import (
	"bufio"
	"io"
	"strings"

	"github.com/emersion/go-message/textproto"
)

// DSN is a delivery status notification (RFC 3464).
type DSN struct {
	Recipients []DSNRecipient
}

// DSNRecipient is the status of one recipient.
type DSNRecipient struct {
	Recipient  string
	Action     string
	Status     string
	Diagnostic string
}

// Permanent says the status is a 5.x.x (a hard bounce).
func (r DSNRecipient) Permanent() bool { return strings.HasPrefix(r.Status, "5.") }

// read takes the per-recipient blocks of a message/delivery-status body.
func (d *DSN) read(r io.Reader) {
	br := bufio.NewReader(io.LimitReader(r, 1<<20))
	for i := 0; i < 1000; i++ {
		h, err := textproto.ReadHeader(br)
		if err != nil && h.Len() == 0 {
			return
		}
		if h.Has("Action") || h.Has("Final-Recipient") {
			d.Recipients = append(d.Recipients, DSNRecipient{
				Recipient:  strings.ToLower(addressOf(h.Get("Final-Recipient"), h.Get("Original-Recipient"))),
				Action:     strings.ToLower(strings.TrimSpace(h.Get("Action"))),
				Status:     strings.TrimSpace(strings.SplitN(h.Get("Status"), " ", 2)[0]),
				Diagnostic: strings.TrimSpace(h.Get("Diagnostic-Code")),
			})
		}
		if err != nil {
			return
		}
	}
}

// addressOf reads "rfc822; ada@example.com".
func addressOf(fields ...string) string {
	for _, f := range fields {
		if _, addr, ok := strings.Cut(f, ";"); ok && strings.TrimSpace(addr) != "" {
			return strings.Trim(strings.TrimSpace(addr), "<>")
		}
	}
	return ""
}
