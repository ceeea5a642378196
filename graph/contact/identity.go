// Package contact is the customer: contacts and their identities on each
// channel (E.164 phones, bare email addresses), and the contacts API.
package contact

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/nyaruka/phonenumbers"
)

// NormalizePhone returns a phone number in E.164. A number needs its country
// code with a leading +; numbers that cannot exist are refused too.
func NormalizePhone(raw string) (string, error) {
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

// NormalizeEmail returns a bare address, or invalid_email.
func NormalizeEmail(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndex(s, "@")+1:], ".") {
		return "", apierr.New(apierr.InvalidEmail, "%q is not an email address.", raw)
	}
	return s, nil
}

// ParseSince reads an updated_since value: a date or a timestamp.
func ParseSince(raw string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", raw); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, apierr.New(apierr.InvalidRequest, "updated_since must be a date (2026-10-01) or a timestamp (2026-10-01T12:00:00.000Z).")
}

// IdentityColumn is the contact column a channel's customer is known by.
var IdentityColumn = map[string]string{
	"website": "external_id", "whatsapp": "phone", "instagram": "instagram_user_id", "email": "email",
}

// IdentityColumnOf is the contact column an identity on a channel is
// stored in: IdentityColumn, except a WhatsApp business-scoped user id,
// which goes in whatsapp_user_id.
func IdentityColumnOf(channel, identity string) string {
	if channel == "whatsapp" && channels.IsWhatsAppUserID(identity) {
		return "whatsapp_user_id"
	}
	return IdentityColumn[channel]
}

// FromChannel is a new contact known by its identity on a channel: a
// phone or business-scoped user id on WhatsApp, an address on email, an
// Instagram user id, or a website visitor id.
func FromChannel(s repo.Scope, channel, identity, name, source string, now time.Time) *repo.Contact {
	c := &repo.Contact{ID: repo.NewID("ct_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
		Name: name, FirstSeenChannel: &channel, Source: source, CreatedAt: now, UpdatedAt: now}
	switch IdentityColumnOf(channel, identity) {
	case "whatsapp_user_id":
		c.WhatsAppUserID = &identity
	case "external_id":
		c.ExternalID = &identity
	case "phone":
		c.Phone = &identity
	case "instagram_user_id":
		c.InstagramUserID = &identity
	case "email":
		c.Email = &identity
	}
	return c
}

// MaxName is the longest contact name, in characters: names are shown in
// lists and carried by every event of the contact's conversations.
const MaxName = 256

// CheckName refuses a contact name longer than MaxName.
func CheckName(name *string) error {
	if name != nil && utf8.RuneCountInString(*name) > MaxName {
		return apierr.New(apierr.InvalidRequest, "name must be at most %d characters.", MaxName)
	}
	return nil
}
