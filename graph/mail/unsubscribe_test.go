package mail

import (
	"strings"
	"testing"
)

func TestUnsubscribeTokens(t *testing.T) {
	l := Links{Secret: "s1-0123456789abcdef", PublicURL: "https://api.test/"}
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
	forged := Links{Secret: "another-secret-000"}.Token(u)
	for _, bad := range []string{"", "x", body, body + ".", "." + sig, forged, body + "." + sig[1:], tok + "x",
		Links{Secret: l.Secret}.Token(Unsubscribe{WorkspaceID: "ws|b", ContactID: "c", Domain: "d"})} {
		if _, err := l.Parse(bad); err == nil && bad != tok {
			t.Errorf("%q accepted", bad)
		}
	}
}
