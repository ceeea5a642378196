package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/repo"
)

// A bounce address holds its message's token: it checks in any case and
// under every secret of a rotation, and nothing else checks (no token, a
// made-up one, another message's, one of a secret no longer listed).
func TestBounceAddressToken(t *testing.T) {
	old := mail.Bounces{Secrets: signing.Secrets{"old-secret-0123456789abcdef"}}
	b := mail.Bounces{Secrets: signing.Secrets{"new-secret-0123456789abcdef", "old-secret-0123456789abcdef"}}
	id := repo.NewID("msg_", time.Now())
	other := repo.NewID("msg_", time.Now()) // the next id: one more in its last digit
	addr := email.BounceAddress(id, b.Token(id), "bounces.acme.com")
	if local, _, _ := strings.Cut(addr, "@"); len(local) > 64 {
		t.Errorf("%s: local part of %d octets, over SMTP's 64", addr, len(local))
	}
	for _, good := range []string{addr, strings.ToUpper(addr), email.BounceAddress(id, old.Token(id), "acme.com")} {
		if got, domain, isBounce, ok := b.Parse(good); !ok || !isBounce || got != id || domain != strings.ToLower(good[strings.Index(good, "@")+1:]) {
			t.Errorf("%s: %s %s %v %v", good, got, domain, isBounce, ok)
		}
	}
	for _, bad := range []string{
		email.BounceAddress(id, "", "acme.com"),
		email.BounceAddress(id, "aaaaaaaaaaaaaaaaaaaa", "acme.com"),
		email.BounceAddress(id, b.Token(other), "acme.com"),
		email.BounceAddress(id, b.Token(id)[:19], "acme.com"),
		email.BounceAddress(id, b.Token(id)+"-x", "acme.com"),
		"bounces+-" + b.Token(id) + "@acme.com",
		"bounces+" + id + "-" + b.Token(id) + "@",
	} {
		if _, _, _, ok := b.Parse(bad); ok {
			t.Errorf("%s checks", bad)
		}
	}
	if _, _, _, ok := old.Parse(email.BounceAddress(id, (mail.Bounces{Secrets: signing.Secrets{"new-secret-0123456789abcdef"}}).Token(id), "acme.com")); ok {
		t.Error("a token of a secret not listed checks")
	}
	for _, notBounce := range []string{"support@acme.com", "bounces@acme.com", "bounces+x"} {
		if _, _, isBounce, _ := b.Parse(notBounce); isBounce {
			t.Errorf("%s is read as a bounce address", notBounce)
		}
	}
}
