package email_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// tokenEndpoint stands in for Microsoft's or Google's token endpoint,
// answering as RFC 6749 documents (rfc-editor.org/rfc/rfc6749): section
// 5.1's successful answer (JSON with access_token, token_type "Bearer",
// expires_in, a new refresh_token; Cache-Control: no-store) and section
// 5.2's error answer (400 with {"error": "invalid_grant", ...}).
type tokenEndpoint struct {
	mu       sync.Mutex
	tokens   []string // handed out in turn
	forms    []string // grant_type:refresh_token (or client_credentials) of each call
	refuse   bool
	rotateTo string
	expires  string // expires_in as sent; 3600 when empty
}

func (e *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost ||
		r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		r.PostForm.Get("client_id") != "app-1" || r.PostForm.Get("client_secret") != "app-secret" {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	e.forms = append(e.forms, r.PostForm.Get("grant_type")+":"+r.PostForm.Get("refresh_token")+r.PostForm.Get("scope"))
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if e.refuse || len(e.tokens) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"AADSTS70000: The refresh token has expired."}`))
		return
	}
	tok := e.tokens[0]
	e.tokens = e.tokens[1:]
	refresh := ""
	if e.rotateTo != "" {
		refresh = `,"refresh_token":"` + e.rotateTo + `"`
	}
	expires := e.expires
	if expires == "" {
		expires = "3600"
	}
	_, _ = w.Write([]byte(`{"access_token":"` + tok + `","token_type":"Bearer","expires_in":` + expires + refresh + `}`))
}

func (e *tokenEndpoint) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.forms...)
}

func oauthClient(t *testing.T, e *tokenEndpoint, now *time.Time) *email.OAuthClient {
	t.Helper()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &email.OAuthClient{OAuthConfig: email.OAuthConfig{TokenURL: srv.URL, ClientID: "app-1", ClientSecret: "app-secret",
		RefreshToken: "refresh-0"}, Now: func() time.Time { return *now }}
}

// A token is kept until a minute before expires_in, then refreshed with the
// refresh token the endpoint last sent.
func TestOAuthTokenCachedAndRefreshed(t *testing.T) {
	now := date
	e := &tokenEndpoint{tokens: []string{"tok-1", "tok-2"}, rotateTo: "refresh-1"}
	o := oauthClient(t, e, &now)
	ctx := context.Background()
	for _, step := range []struct {
		after time.Duration
		want  string
	}{{0, "tok-1"}, {58 * time.Minute, "tok-1"}, {time.Minute + time.Second, "tok-2"}} {
		now = now.Add(step.after)
		if got, err := o.Token(ctx); err != nil || got != step.want {
			t.Fatalf("at +%v: %q %v, want %s", step.after, got, err, step.want)
		}
	}
	if got := strings.Join(e.calls(), ","); got != "refresh_token:refresh-0,refresh_token:refresh-1" {
		t.Fatalf("calls %s", got)
	}
}

// An expires_in too large for a time.Duration is held for a day at most,
// not read as already expired.
func TestOAuthHugeExpiresIn(t *testing.T) {
	now := date
	e := &tokenEndpoint{tokens: []string{"tok-1", "tok-2"}, expires: "9223372036854775807"}
	o := oauthClient(t, e, &now)
	ctx := context.Background()
	for _, step := range []struct {
		after time.Duration
		want  string
	}{{0, "tok-1"}, {time.Hour, "tok-1"}, {23 * time.Hour, "tok-2"}} {
		now = now.Add(step.after)
		if got, err := o.Token(ctx); err != nil || got != step.want {
			t.Fatalf("at +%v: %q %v, want %s", step.after, got, err, step.want)
		}
	}
}

// Without a refresh token: the client credentials grant, with the scope.
func TestOAuthClientCredentials(t *testing.T) {
	now := date
	e := &tokenEndpoint{tokens: []string{"tok-1"}}
	o := oauthClient(t, e, &now)
	o.RefreshToken, o.Scope = "", "https://outlook.office365.com/.default"
	if got, err := o.Token(context.Background()); err != nil || got != "tok-1" {
		t.Fatalf("%q %v", got, err)
	}
	if got := strings.Join(e.calls(), ","); got != "client_credentials:https://outlook.office365.com/.default" {
		t.Fatalf("calls %s", got)
	}
}

// A relay offering XOAUTH2 (Microsoft 365, Google) takes the client's
// token; one it refuses with 535 before its expiry is replaced once, on a
// new connection.
func TestRelayXOAUTH2WithOAuthClient(t *testing.T) {
	now := date
	e := &tokenEndpoint{tokens: []string{"tok-revoked", "tok-2"}}
	sink := emailtest.NewSink()
	sink.OfferAuth("LOGIN", "XOAUTH2")
	sink.RequireAuth("mailer@acme.test", "tok-2")
	relay := plainRelay(t, sink, "smtp://ADDR")
	relay.Username, relay.Tokens = "mailer@acme.test", oauthClient(t, e, &now)
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	b64 := func(tok string) string {
		return base64.StdEncoding.EncodeToString([]byte("user=mailer@acme.test\x01auth=Bearer " + tok + "\x01\x01"))
	}
	// go-smtp's client cancels a failed AUTH with "*" before the
	// connection is dropped.
	first := strings.Join([]string{
		"S: 250 SIZE",
		"C: AUTH XOAUTH2 " + b64("tok-revoked"),
		"S: 535 5.7.8 bad credentials",
		"C: *",
		"S: 501 5.5.2 Bad command",
	}, "\n")
	second := strings.Join([]string{
		"S: 250 SIZE",
		"C: AUTH XOAUTH2 " + b64("tok-2"),
		"S: 235 2.0.0 Authentication succeeded",
		"C: MAIL FROM:<bounces+msg_01TEST@acme.test> BODY=8BITMIME",
	}, "\n")
	got := sink.Transcripts()
	if len(got) != 2 || !strings.HasSuffix(got[0], first) || !strings.Contains(got[1], second) {
		t.Fatalf("transcripts:\n%s\nwant ending the first:\n%s\nand within the second:\n%s", strings.Join(got, "\n----\n"), first, second)
	}
	// The next mail reuses the token that worked.
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>y</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if n := len(e.calls()); n != 2 || len(sink.Mails()) != 2 {
		t.Fatalf("%d token calls, %d mails", n, len(sink.Mails()))
	}
}

// A refresh the endpoint refuses (RFC 6749 5.2) sends nothing: 503
// channel_unavailable naming the endpoint's error, never a secret.
func TestRelayOAuthRefused(t *testing.T) {
	now := date
	e := &tokenEndpoint{refuse: true}
	sink := emailtest.NewSink()
	sink.OfferAuth("XOAUTH2")
	sink.RequireAuth("mailer@acme.test", "tok-1")
	relay := plainRelay(t, sink, "smtp://ADDR")
	relay.Username, relay.Tokens = "mailer@acme.test", oauthClient(t, e, &now)
	_, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil))
	r := channels.AsRefusal(err)
	if r.Code != apierr.ChannelUnavailable || !strings.Contains(r.Reason, "invalid_grant") || len(sink.Mails()) != 0 ||
		strings.Contains(r.Reason, "app-secret") || strings.Contains(r.Reason, "refresh-0") {
		t.Fatalf("refusal %+v, %d mails", r, len(sink.Mails()))
	}
}

// A token URL that does not parse is reported without its userinfo.
func TestOAuthBadTokenURLHidesUserinfo(t *testing.T) {
	o := &email.OAuthClient{OAuthConfig: email.OAuthConfig{TokenURL: "https://app:s3cret@login.example.com/tok\x7fen",
		ClientID: "app-1", ClientSecret: "app-secret"}}
	_, err := o.Token(context.Background())
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "app-secret") {
		t.Fatalf("err %v", err)
	}
}
