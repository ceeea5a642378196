package mail

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/signing"
)

func TestUnsubscribeTokens(t *testing.T) {
	l := Links{Secrets: signing.Secrets{"s1-0123456789abcdef"}, PublicURL: "https://api.test/"}
	u := Unsubscribe{WorkspaceID: "ws_a", Livemode: true, ContactID: "ct_1", Domain: "acme.test"}
	tok := l.Token(u)
	if l.Token(u) != tok {
		t.Fatal("a contact's token changes between sends")
	}
	if got := l.URL(u); got != "https://api.test/unsubscribe/"+tok {
		t.Fatalf("URL %s", got)
	}
	back, err := l.Parse(tok)
	if err != nil || back != u {
		t.Fatalf("parse %+v %v", back, err)
	}
	other := u
	other.Domain = "other.test"
	if l.Token(other) == tok {
		t.Fatal("one token for two sending domains")
	}
	body, sig, _ := strings.Cut(tok, ".")
	forged := Links{Secrets: signing.Secrets{"another-secret-000"}}.Token(u)
	for _, bad := range []string{"", "x", body, body + ".", "." + sig, forged, body + "." + sig[1:], tok + "x",
		Links{Secrets: l.Secrets}.Token(Unsubscribe{WorkspaceID: "ws|b", ContactID: "c", Domain: "d"})} {
		if _, err := l.Parse(bad); err == nil && bad != tok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestUnsubscribeTokensAcrossARotation(t *testing.T) {
	u := Unsubscribe{WorkspaceID: "ws_a", Livemode: true, ContactID: "ct_1", Domain: "acme.test"}
	old := Links{Secrets: signing.Secrets{"old-secret-0123456"}}
	rotated := Links{Secrets: signing.Secrets{"new-secret-0123456", "old-secret-0123456"}}
	if back, err := rotated.Parse(old.Token(u)); err != nil || back != u {
		t.Fatalf("a link mailed before the rotation: %+v, %v", back, err)
	}
	if rotated.Token(u) != (Links{Secrets: signing.Secrets{"new-secret-0123456"}}).Token(u) {
		t.Fatal("new links are not signed with the first secret")
	}
	if _, err := (Links{Secrets: signing.Secrets{"new-secret-0123456"}}).Parse(old.Token(u)); err == nil {
		t.Fatal("a link of a secret no longer listed is accepted")
	}
}
