package instagram_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/instagram"
)

// TokenDue: an Instagram Login token is refreshed once at least 24 hours
// old (Meta refuses younger ones) and within 10 days of its expiry, or as
// soon as it is 24 hours old while its expiry is unknown; a Page token
// (Facebook Login) never.
// https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token
func TestTokenDue(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	day := 24 * time.Hour
	cases := []struct {
		name string
		c    channels.Credentials
		want string
	}{
		{"no issue time yet", channels.Credentials{AccessToken: "t"}, "start"},
		{"younger than 24 h", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-23 * time.Hour)}, ""},
		{"24 h old, expiry unknown", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-day)}, "refresh"},
		{"far from expiry", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-2 * day), TokenExpiresAt: at(58 * day)}, ""},
		{"just over 10 days left", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-50 * day), TokenExpiresAt: at(10*day + time.Second)}, ""},
		{"10 days left", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-50 * day), TokenExpiresAt: at(10 * day)}, "refresh"},
		{"expired", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-61 * day), TokenExpiresAt: at(-day)}, "refresh"},
		{"10 days left but refreshed an hour ago", channels.Credentials{AccessToken: "t", TokenIssuedAt: at(-time.Hour), TokenExpiresAt: at(5 * day)}, ""},
		{"facebook login", channels.Credentials{Login: "facebook", AccessToken: "t", TokenIssuedAt: at(-90 * day)}, ""},
	}
	for _, c := range cases {
		if got := instagram.TokenDue(&c.c, now); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
