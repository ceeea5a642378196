// Package webhooksig signs and verifies the Service-Signature header of
// msgsvc webhook requests, and parses their event envelope. msgsvc signs
// with it; receivers import it to check that a request came from msgsvc.
//
// The header reads t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">. While a
// secret is being rolled it carries one v1 per secret; any one is enough.
// The HMAC key is the whole secret string, whsec_ prefix included.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HeaderName is the request header that carries the signature.
const HeaderName = "Service-Signature"

// Tolerance is how far a signature timestamp may be from the receiver's
// clock before the request is refused as a replay.
const Tolerance = 5 * time.Minute

// MaxBody is the largest request body ParseRequest reads.
const MaxBody = 1 << 20

// Errors Verify returns; callers answer all of them with a 400.
var (
	ErrNoSignature = errors.New("webhooksig: no Service-Signature header")
	ErrMalformed   = errors.New("webhooksig: malformed Service-Signature header")
	ErrTimestamp   = errors.New("webhooksig: signature timestamp outside the tolerance")
	ErrMismatch    = errors.New("webhooksig: no v1 signature matches")
)

// Sign returns the hex HMAC-SHA256 of "<unix>.<body>" keyed with secret.
func Sign(secret string, unix int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(unix, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Header returns the Service-Signature value for body sent at t, with one
// v1 per secret in the order given.
func Header(t time.Time, body []byte, secrets ...string) string {
	unix := t.Unix()
	var b strings.Builder
	b.WriteString("t=" + strconv.FormatInt(unix, 10))
	for _, s := range secrets {
		b.WriteString(",v1=" + Sign(s, unix, body))
	}
	return b.String()
}

// Verify checks a Service-Signature header against the raw body: the
// timestamp must be within Tolerance of now, and some v1 must match some
// secret. Comparisons are constant-time.
func Verify(header string, body []byte, now time.Time, secrets ...string) error {
	if strings.TrimSpace(header) == "" {
		return ErrNoSignature
	}
	var unix int64
	var haveT bool
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrMalformed
		}
		switch name {
		case "t":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return ErrMalformed
			}
			unix, haveT = n, true
		case "v1":
			// A value that is not hex can never match; skip it rather than
			// refuse the header, as future schemes may add other forms.
			if sig, err := hex.DecodeString(value); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	if !haveT || len(sigs) == 0 {
		return ErrMalformed
	}
	if d := now.Sub(time.Unix(unix, 0)); d > Tolerance || d < -Tolerance {
		return ErrTimestamp
	}
	for _, s := range secrets {
		want, _ := hex.DecodeString(Sign(s, unix, body))
		for _, sig := range sigs {
			if hmac.Equal(sig, want) {
				return nil
			}
		}
	}
	return ErrMismatch
}

// Event is the envelope every webhook carries.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	// Channel and WebsiteID are null for events outside a conversation
	// (contact.*, endpoint.verification, endpoint.test).
	Channel   *string `json:"channel"`
	WebsiteID *string `json:"website_id"`
	Livemode  bool    `json:"livemode"`
	// MetadataOnly is set for endpoints that receive ids, types, status and
	// times only; fetch content through the API.
	MetadataOnly bool `json:"metadata_only"`
	// Data is the resource the event is about (a message, conversation or
	// contact); decode it by Type.
	Data json.RawMessage `json:"data"`
}

// Challenge returns data.challenge of an endpoint.verification event, which
// the receiver echoes as {"challenge": ...} in a 2xx answer.
func (e *Event) Challenge() string {
	var d struct {
		Challenge string `json:"challenge"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Challenge
}

// Parse verifies a body and its header at now and decodes the envelope.
func Parse(header string, body []byte, now time.Time, secrets ...string) (*Event, error) {
	if err := Verify(header, body, now, secrets...); err != nil {
		return nil, err
	}
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("webhooksig: envelope: %w", err)
	}
	return &e, nil
}

// ParseRequest reads a webhook request's body (up to MaxBody), verifies it
// against the current time and decodes the envelope.
func ParseRequest(r *http.Request, secrets ...string) (*Event, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("webhooksig: read body: %w", err)
	}
	if len(body) > MaxBody {
		return nil, errors.New("webhooksig: body larger than 1 MiB")
	}
	return Parse(r.Header.Get(HeaderName), body, time.Now(), secrets...)
}
