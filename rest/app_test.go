package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/member"
)

// TestSignIn: a code for a member and for a stranger answers the same
// (a mail only to the member); the right code signs in once, with the
// cookie of docs/app.md and no-store; the session answers until sign-out.
func TestSignIn(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	for _, email := range []string{"Alice@Main.test", "stranger@nowhere.test"} {
		r := appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": email})
		if r.Status != 202 || r.Body["sent"] != true {
			t.Fatalf("code for %s: %d %v", email, r.Status, r.Body)
		}
	}
	if r := appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "not an address"}); r.Status != 400 {
		t.Errorf("no address: %d %v", r.Status, r.Body)
	}
	code := sink.code(t, "alice@main.test")
	if sink.mailed("stranger@nowhere.test") != 0 {
		t.Error("a stranger was mailed a code")
	}
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	if r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "alice@main.test", "code": wrong}); r.Status != 401 || r.code() != "invalid_code" {
		t.Fatalf("wrong code: %d %v", r.Status, r.Body)
	}
	r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "ALICE@main.test", "code": code})
	if r.Status != 200 {
		t.Fatalf("sign-in: %d %v", r.Status, r.Body)
	}
	m := r.Body["member"].(map[string]any)
	ws := r.Body["workspace"].(map[string]any)
	if m["id"] != "usr_alice" || m["role"] != "agent" || m["email"] != "alice@main.test" || ws["id"] != "ws_main" || ws["name"] != "Main" {
		t.Errorf("signed in as %v of %v", m, ws)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	set := r.Header.Get("Set-Cookie")
	for _, want := range []string{"msgsvc_session=", "Path=/", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") || strings.Contains(set, "__Host-") {
		t.Errorf("Set-Cookie %q on an http public URL", set)
	}
	cookie := strings.SplitN(set, ";", 2)[0]
	if again := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "alice@main.test", "code": code}); again.Status != 401 {
		t.Errorf("a code used twice: %d %v", again.Status, again.Body)
	}
	if s := appDo(t, api, "GET", "/app/api/session", nil, "Cookie", cookie); s.Status != 200 || s.Body["member"].(map[string]any)["id"] != "usr_alice" {
		t.Fatalf("session: %d %v", s.Status, s.Body)
	}
	out := appDo(t, api, "POST", "/app/api/sign-out", nil, "Cookie", cookie)
	if out.Status != 204 || !strings.Contains(out.Header.Get("Set-Cookie"), "Max-Age=0") || out.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("sign-out: %d %v", out.Status, out.Header)
	}
	if s := appDo(t, api, "GET", "/app/api/session", nil, "Cookie", cookie); s.Status != 401 || s.code() != "sign_in_required" {
		t.Errorf("session after sign-out: %d %v", s.Status, s.Body)
	}
	if s := appDo(t, api, "GET", "/app/api/session", nil); s.Status != 401 {
		t.Errorf("session without a cookie: %d", s.Status)
	}
}

// TestSessionCookieOverHTTPS: with an https public URL the cookie is
// __Host-msgsvc_session, Secure, for the whole host.
func TestSessionCookieOverHTTPS(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "https://app.example.test")
	cookie := signIn(t, api, sink, "owen@main.test")
	if !strings.HasPrefix(cookie, "__Host-msgsvc_session=") {
		t.Fatalf("cookie %q", cookie)
	}
	appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "owen@main.test"})
	r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "owen@main.test", "code": sink.code(t, "owen@main.test")})
	set := r.Header.Get("Set-Cookie")
	for _, want := range []string{"__Host-msgsvc_session=", "Path=/", "HttpOnly", "SameSite=Lax", "Secure"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Domain=") {
		t.Errorf("a __Host- cookie has no Domain: %q", set)
	}
	if _, code := asMember(t, api, cookie, `{ me { id role } }`); code != "" {
		t.Errorf("me over the https cookie: %s", code)
	}
}

// TestSignInCodeLimits: 5 codes an hour per address, members and
// strangers alike; 5 wrong tries end a code; a code lasts 10 minutes.
func TestSignInCodeLimits(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	for _, email := range []string{"devi@main.test", "nobody@nowhere.test"} {
		for i := range 6 {
			r := appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": email})
			if want := map[bool]int{true: 202, false: 429}[i < 5]; r.Status != want {
				t.Fatalf("%s code %d: %d %v", email, i+1, r.Status, r.Body)
			}
		}
	}
	sink.code(t, "devi@main.test")
	api.Clock.Advance(time.Hour + time.Second)
	appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "devi@main.test"})
	code := sink.code(t, "devi@main.test")
	for range member.MaxWrongTries {
		appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "devi@main.test", "code": "12345x"})
	}
	if r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "devi@main.test", "code": code}); r.Status != 401 {
		t.Errorf("the right code after 5 wrong tries: %d", r.Status)
	}
	appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "devi@main.test"})
	code = sink.code(t, "devi@main.test")
	api.Clock.Advance(member.CodeTTL)
	if r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": "devi@main.test", "code": code}); r.Status != 401 {
		t.Errorf("a code 10 minutes old: %d", r.Status)
	}
	// A switched-off member gets no mail.
	appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "gone@main.test"})
	if n := sink.mailed("gone@main.test"); n != 0 {
		t.Errorf("a switched-off member was mailed %d codes", n)
	}
}

// TestSessionIdleAndAbsolute: 12 hours idle end a session; used, it lives
// 7 days at most.
func TestSessionIdleAndAbsolute(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	idle := signIn(t, api, sink, "alice@main.test")
	busy := signIn(t, api, sink, "owen@main.test")
	session := func(cookie string) int { return appDo(t, api, "GET", "/app/api/session", nil, "Cookie", cookie).Status }
	api.Clock.Advance(11 * time.Hour)
	if session(busy) != 200 {
		t.Fatal("a session used within 12 h ended")
	}
	api.Clock.Advance(time.Hour)
	if session(idle) != 401 {
		t.Error("a session idle 12 h still answers")
	}
	if session(busy) != 200 {
		t.Fatal("a session used an hour ago ended")
	}
	for elapsed := 12 * time.Hour; elapsed < member.SessionLifetime-11*time.Hour; elapsed += 11 * time.Hour {
		api.Clock.Advance(11 * time.Hour)
		if session(busy) != 200 {
			t.Fatalf("a session used every 11 h ended after %s", elapsed)
		}
	}
	api.Clock.Advance(11 * time.Hour)
	if session(busy) != 401 {
		t.Error("a session outlived 7 days")
	}
}

// TestCrossOriginRefusal: with the cookie, a cross-origin POST to /graphql
// or /app/api is refused 403; the same origin works; the admin token's
// Bearer requests are unaffected; a cookie-carrying WebSocket upgrade from
// another origin is refused 403.
func TestCrossOriginRefusal(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "https://app.example.test")
	cookie := signIn(t, api, sink, "alice@main.test")
	cross := []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}
	if _, code := asMember(t, api, cookie, `{ me { id } }`, cross...); code != "cross_origin_refused" {
		t.Errorf("cross-origin /graphql with the cookie: %q", code)
	}
	if r := appDo(t, api, "POST", "/app/api/sign-out", nil, append([]string{"Cookie", cookie}, cross...)...); r.Status != 403 {
		t.Errorf("cross-origin sign-out: %d", r.Status)
	}
	for _, same := range [][]string{{"Sec-Fetch-Site", "same-origin"}, {"Origin", "https://app.example.test", "Sec-Fetch-Site", "same-site"}, {}} {
		if _, code := asMember(t, api, cookie, `{ me { id } }`, same...); code != "" {
			t.Errorf("same-origin /graphql %v: %q", same, code)
		}
	}
	r := appDo(t, api, "POST", "/graphql", map[string]any{"query": `{ usage { period } }`},
		append([]string{"Authorization", "Bearer admin-token", "Msgsvc-Workspace", "ws_main"}, cross...)...)
	if r.Status != 200 || r.Body["errors"] != nil {
		t.Errorf("the admin token cross-origin: %d %v", r.Status, r.Body)
	}
	for _, origin := range []string{"https://evil.example", ""} {
		req, _ := http.NewRequest("GET", api.HTTP.URL+"/graphql", nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Sec-WebSocket-Protocol", "graphql-transport-ws")
		req.Header.Set("Cookie", cookie)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("WebSocket upgrade with the cookie from origin %q: %d", origin, resp.StatusCode)
		}
	}
}
