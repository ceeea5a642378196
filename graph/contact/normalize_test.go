package contact

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Phones are stored in E.164 and need their country code; email addresses
// are bare, with a dot in the domain.
func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		rule, kind, in, want string
		code                 apierr.Code
	}{
		{"E.164 kept", "phone", "+15550101234", "+15550101234", ""},
		{"spaces and punctuation dropped", "phone", " +1 (555) 010-1234 ", "+15550101234", ""},
		{"a UK number", "phone", "+44 20 7946 0958", "+442079460958", ""},
		{"no leading +", "phone", "15550101234", "", apierr.InvalidPhone},
		{"too short to exist", "phone", "+1555", "", apierr.InvalidPhone},
		{"too long to exist", "phone", "+1 555 010 1234 5678 9012", "", apierr.InvalidPhone},
		{"an address", "email", "kim@example.com", "kim@example.com", ""},
		{"case kept", "email", "Kim@Example.com", "Kim@Example.com", ""},
		{"spaces trimmed", "email", "  kim@example.com ", "kim@example.com", ""},
		{"a display name", "email", "Kim <kim@example.com>", "", apierr.InvalidEmail},
		{"no domain dot", "email", "kim@localhost", "", apierr.InvalidEmail},
		{"no @", "email", "kim", "", apierr.InvalidEmail},
		{"two addresses", "email", "a@example.com, b@example.com", "", apierr.InvalidEmail},
	} {
		normalize := NormalizeEmail
		if c.kind == "phone" {
			normalize = NormalizePhone
		}
		got, err := normalize(c.in)
		var code apierr.Code
		if e, ok := apierr.As(err); ok {
			code = e.Code
		} else if err != nil {
			t.Errorf("%s (%q): error %v is not an API error", c.rule, c.in, err)
		}
		if got != c.want || code != c.code {
			t.Errorf("%s (%q): got %q, %q; want %q, %q", c.rule, c.in, got, code, c.want, c.code)
		}
	}
}

// A customer first seen on a channel is known by that channel's identity,
// in its own column.
func TestFromChannel(t *testing.T) {
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		channel, identity, column string
		field                     func(*repo.Contact) *string
	}{
		{"whatsapp", "+15550101234", "phone", func(c *repo.Contact) *string { return c.Phone }},
		{"whatsapp", "US.13491208655302741918", "whatsapp_user_id", func(c *repo.Contact) *string { return c.WhatsAppUserID }},
		{"email", "kim@example.com", "email", func(c *repo.Contact) *string { return c.Email }},
		{"instagram", "1784000001", "instagram_user_id", func(c *repo.Contact) *string { return c.InstagramUserID }},
		{"website", "visitor-1", "external_id", func(c *repo.Contact) *string { return c.ExternalID }},
	} {
		if got := IdentityColumnOf(c.channel, c.identity); got != c.column {
			t.Errorf("%s %s: column: got %q, want %q", c.channel, c.identity, got, c.column)
		}
		ct := FromChannel(repo.Scope{WorkspaceID: "ws_1", Livemode: true}, c.channel, c.identity, "Ana", "captured", at)
		set := 0
		for _, f := range []*string{ct.Phone, ct.WhatsAppUserID, ct.Email, ct.InstagramUserID, ct.ExternalID} {
			if f != nil {
				set++
			}
		}
		if v := c.field(ct); v == nil || *v != c.identity || set != 1 {
			t.Errorf("%s %s: %s: got %v with %d identities set, want %q alone", c.channel, c.identity, c.column, v, set, c.identity)
		}
		if ct.FirstSeenChannel == nil || *ct.FirstSeenChannel != c.channel || !ct.Livemode || ct.WorkspaceID != "ws_1" {
			t.Errorf("%s: first_seen_channel %v, livemode %v, workspace %q; want %s, true, ws_1", c.channel, ct.FirstSeenChannel, ct.Livemode, ct.WorkspaceID, c.channel)
		}
	}
}

func TestParseSince(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-10-01", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), true},
		{"2026-10-01T12:00:00.000Z", time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC), true},
		{"2026-10-01T14:00:00+02:00", time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC), true},
		{"yesterday", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
	} {
		got, err := ParseSince(c.in)
		if (err == nil) != c.ok || !got.Equal(c.want) {
			t.Errorf("ParseSince(%q): got %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}
