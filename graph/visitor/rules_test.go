package visitor

import (
	"errors"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

func code(err error) apierr.Code {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestIdentityVerification(t *testing.T) {
	secret := []byte("s3cret")
	// hex(HMAC-SHA256("s3cret", "user-1")), computed independently with openssl.
	const want = "8e6d6d439f86ee1bfe2a4d9ba3081c530a9dda2161c0ac814a747cb06c11f100"
	got := UserHash(secret, "user-1")
	if got != want {
		t.Fatalf("UserHash %q, want %q", got, want)
	}
	cases := []struct {
		name           string
		secret         []byte
		userID, hash   string
		verifiedResult bool
	}{
		{"matching hash", secret, "user-1", got, true},
		{"uppercase hex", secret, "user-1", strings.ToUpper(got), true},
		{"hash of another user", secret, "user-2", got, false},
		{"no hash", secret, "user-1", "", false},
		{"no secret on the website", nil, "user-1", got, false},
		{"no user", secret, "", UserHash(secret, ""), false},
		{"other secret", []byte("other"), "user-1", got, false},
	}
	for _, c := range cases {
		if v := verified(c.secret, c.userID, c.hash); v != c.verifiedResult {
			t.Errorf("%s: verified %v", c.name, v)
		}
	}
}

func TestCheckOrigin(t *testing.T) {
	w := &repo.WebsiteWidget{WebsiteID: "web_a", Domains: []string{"https://acme.test", "http://localhost:3000/"}}
	for origin, ok := range map[string]bool{
		"https://acme.test": true, "https://ACME.test/": true, "http://localhost:3000": true,
		"http://acme.test": false, "https://acme.test.evil": false, "https://sub.acme.test": false,
		"": false, "null": false, "http://localhost:3001": false,
	} {
		err := CheckOrigin(w, origin)
		if (err == nil) != ok || (err != nil && code(err) != apierr.WebsiteNotAllowed) {
			t.Errorf("origin %q: %v", origin, err)
		}
	}
}

func TestForward(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"sent", "delivered", true}, {"sent", "read", true}, {"delivered", "read", true},
		{"delivered", "delivered", false}, {"read", "delivered", false}, {"read", "read", false},
		{"failed", "delivered", false}, {"sending", "delivered", false}, {"received", "read", false},
	} {
		if Forward(c.from, c.to) != c.ok {
			t.Errorf("%s -> %s: want %v", c.from, c.to, c.ok)
		}
	}
}

func TestCheckText(t *testing.T) {
	if code(CheckText("")) != apierr.TextRequired || code(CheckText(" \n\t")) != apierr.TextRequired {
		t.Error("blank text is not text_required")
	}
	if err := CheckText(strings.Repeat("ü", MaxText)); err != nil {
		t.Errorf("%d characters refused: %v", MaxText, err)
	}
	if code(CheckText(strings.Repeat("a", MaxText+1))) != apierr.InvalidRequest {
		t.Error("text over the limit taken")
	}
}

func TestTokens(t *testing.T) {
	a, ha, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := newToken()
	if a == b || !strings.HasPrefix(a, "vt_") || len(a) < 40 {
		t.Errorf("tokens %q %q", a, b)
	}
	if ha != TokenHash(a) || strings.Contains(ha, a) {
		t.Errorf("hash %q of %q", ha, a)
	}
}

func TestCheckUserID(t *testing.T) {
	for id, ok := range map[string]bool{"user-1": true, "42": true, "visitor-7": true, "VIS_x": true,
		"vis_06h274d1f1zwspeeh8pdjdm5y7vz2": false, "vis_": false} {
		if err := CheckUserID(id); (err == nil) != ok || (err != nil && code(err) != apierr.InvalidRequest) {
			t.Errorf("user_id %q: %v", id, err)
		}
	}
}
