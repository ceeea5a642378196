package graph

import (
	"net/mail"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/apierr"

	"github.com/nyaruka/phonenumbers"
)

// normalizePhone returns a phone number in E.164. A number needs its country
// code with a leading +; numbers that cannot exist are refused too.
func normalizePhone(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	bad := apierr.New(apierr.InvalidPhone, "Phone %q needs a country code with a leading +, like +15550001111.", raw)
	if !strings.HasPrefix(s, "+") {
		return "", bad
	}
	n, err := phonenumbers.Parse(s, "")
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return "", bad
	}
	return phonenumbers.Format(n, phonenumbers.E164), nil
}

// normalizeEmail returns a bare address, or invalid_email.
func normalizeEmail(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndex(s, "@")+1:], ".") {
		return "", apierr.New(apierr.InvalidEmail, "%q is not an email address.", raw)
	}
	return s, nil
}

// parseSince reads an updated_since value: a date or a timestamp.
func parseSince(raw string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", raw); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, apierr.New(apierr.InvalidRequest, "updated_since must be a date (2026-10-01) or a timestamp (2026-10-01T12:00:00.000Z).")
}
