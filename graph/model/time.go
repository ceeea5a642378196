// Package model holds the domain types shared by the GraphQL schema, the REST
// facade and the event envelopes; their JSON tags are the /v1 contract.
package model

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// TimestampLayout is how every timestamp is written: UTC, milliseconds.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp is a UTC instant written with milliseconds and a Z.
type Timestamp struct{ time.Time }

// NewTimestamp wraps t, truncated to milliseconds as the contract shows it.
func NewTimestamp(t time.Time) Timestamp { return Timestamp{t.UTC().Truncate(time.Millisecond)} }

// TimestampPtr returns nil for a nil time and a Timestamp otherwise.
func TimestampPtr(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	ts := NewTimestamp(*t)
	return &ts
}

// String formats the timestamp in the contract's layout.
func (t Timestamp) String() string { return string(t.append(make([]byte, 0, len(TimestampLayout)))) }

// MarshalJSON writes the contract's layout, quoted.
func (t Timestamp) MarshalJSON() ([]byte, error) { return t.quoted(), nil }

// quoted is the timestamp in the contract's layout, in quotes (it has no
// character JSON or GraphQL would escape).
func (t Timestamp) quoted() []byte {
	b := make([]byte, 0, len(TimestampLayout)+2)
	return append(t.append(append(b, '"')), '"')
}

// append appends the timestamp in the contract's layout. Every event and
// answer writes several, so it writes the digits itself rather than have
// time.AppendFormat read the layout each time; a year outside 0-9999 goes
// through AppendFormat.
func (t Timestamp) append(b []byte) []byte {
	u := t.UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		return u.AppendFormat(b, TimestampLayout)
	}
	hour, minute, second := u.Clock()
	b = digits(b, year, 4)
	b = digits(append(b, '-'), int(month), 2)
	b = digits(append(b, '-'), day, 2)
	b = digits(append(b, 'T'), hour, 2)
	b = digits(append(b, ':'), minute, 2)
	b = digits(append(b, ':'), second, 2)
	b = digits(append(b, '.'), u.Nanosecond()/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// digits appends n (0 <= n < 10^width) in width decimal digits.
func digits(b []byte, n, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, 0)
	}
	for i := len(b) - 1; width > 0; i, width = i-1, width-1 {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// UnmarshalJSON reads RFC 3339 with any fraction.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("timestamp %q: want RFC 3339, like 2026-10-01T12:34:56.789Z", s)
	}
	*t = NewTimestamp(parsed)
	return nil
}

// MarshalGQL writes the timestamp as a GraphQL string.
func (t Timestamp) MarshalGQL(w io.Writer) { _, _ = w.Write(t.quoted()) }

// UnmarshalGQL reads a GraphQL string timestamp.
func (t *Timestamp) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("timestamp must be a string")
	}
	return t.UnmarshalJSON([]byte(strconv.Quote(s)))
}

// JSON is a raw JSON value passed through GraphQL unchanged.
type JSON json.RawMessage

// MarshalJSON writes the raw value (null when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps a copy of the raw value.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}

// MarshalGQL writes the raw value.
func (j JSON) MarshalGQL(w io.Writer) {
	b, _ := j.MarshalJSON()
	_, _ = w.Write(b)
}

// UnmarshalGQL encodes a GraphQL input value as JSON.
func (j *JSON) UnmarshalGQL(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*j = b
	return nil
}
