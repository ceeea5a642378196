package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Objects of Meta webhooks.
const (
	ObjectWhatsApp  = "whatsapp_business_account"
	ObjectInstagram = "instagram"
)

// Payload is one webhook POST parsed: its object and its events in the order
// Meta listed them. Ignored lists what was recognised as not ours to
// process (an unknown field or object), for a log line.
type Payload struct {
	Object  string
	Events  []Event
	Ignored []string
}

// Event is one thing a webhook says. Its concrete type is one of
// *WhatsAppMessage, *WhatsAppStatus, *WhatsAppUserPreference,
// *WhatsAppTemplateStatus, *WhatsAppAccountUpdate, *WhatsAppValueErrors,
// *InstagramMessage, *InstagramRead, *InstagramReaction, *InstagramPostback,
// *InstagramReferral, *InstagramEdit and *InstagramComment.
type Event interface {
	// Channel is "whatsapp" or "instagram".
	Channel() string
	// RouteID is the account id the event is routed by: the phone number id
	// of WhatsApp messages, statuses and preferences, the WABA id of
	// template and account updates, the entry id (the Instagram account)
	// of Instagram events.
	RouteID() string
}

// ErrNotJSON is a body that is not a webhook payload at all.
var ErrNotJSON = errors.New("meta: the webhook body is not a JSON object")

// ParseWebhook parses a webhook body (after VerifySignature). An unknown
// object or field is no error: it is listed in Ignored.
func ParseWebhook(raw []byte) (*Payload, error) {
	var env struct {
		Object string            `json:"object"`
		Entry  []json.RawMessage `json:"entry"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if env.Object == "" {
		return nil, fmt.Errorf("%w: no object", ErrNotJSON)
	}
	p := &Payload{Object: env.Object}
	for i, entry := range env.Entry {
		var err error
		switch env.Object {
		case ObjectWhatsApp:
			err = p.whatsAppEntry(entry)
		case ObjectInstagram:
			err = p.instagramEntry(entry)
		default:
			p.Ignored = append(p.Ignored, "object "+env.Object)
			return p, nil
		}
		if err != nil {
			return nil, fmt.Errorf("meta: webhook entry %d: %w", i, err)
		}
	}
	return p, nil
}

// change is one item of an entry's changes[].
type change struct {
	Field string          `json:"field"`
	Value json.RawMessage `json:"value"`
}

// Time is a webhook timestamp: a number or a string, in seconds or (when it
// is past the year 2286 in seconds) milliseconds.
type Time struct{ time.Time }

// UnmarshalJSON reads "1700000000", 1700000000 or 1700000000000.
func (t *Time) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("meta: timestamp %q: %w", s, err)
		}
		n = int64(f)
	}
	if n > 1e10 {
		t.Time = time.UnixMilli(n).UTC()
	} else {
		t.Time = time.Unix(n, 0).UTC()
	}
	return nil
}

// ID is an id Meta sends as a string or, in some payloads, a number.
type ID string

// UnmarshalJSON reads "123" or 123.
func (id *ID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
		return nil
	}
	if string(b) == "null" {
		*id = ""
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("meta: id %s: %w", b, err)
	}
	*id = ID(n.String())
	return nil
}
