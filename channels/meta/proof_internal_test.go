package meta

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// With an app secret every call to the Graph API host carries
// appsecret_proof, the hex HMAC-SHA256 of the token keyed by the secret
// (https://developers.facebook.com/docs/graph-api/securing-requests/); a
// URL of another host (a media CDN link) is left as it is, and a client
// without a secret adds nothing.
func TestAppSecretProof(t *testing.T) {
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r)
		_, _ = w.Write([]byte(`{"success":true}`))
	}))
	defer srv.Close()
	c := Config{GraphURL: srv.URL, AppSecret: "app-secret"}.Graph()
	if err := c.PostJSON(context.Background(), "EAAGtoken", map[string]any{}, nil, "102290129340398", "subscribed_apps"); err != nil {
		t.Fatal(err)
	}
	// HMAC-SHA256("EAAGtoken") keyed by "app-secret", computed apart (Python's hmac).
	const want = "a4ce06bfe906a3dc23b52fe84057d5682332255492b579adf8a54fd53fe8d74e"
	if p := got[0].URL.Query().Get("appsecret_proof"); p != want || len(p) != 64 {
		t.Fatalf("appsecret_proof %q, want %q", p, want)
	}
	other := c.prove("https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1&hash=x", "EAAGtoken")
	if strings.Contains(other, "appsecret_proof") {
		t.Fatalf("a CDN URL was changed: %s", other)
	}
	if err := c.WithAppSecret("").GetJSON(context.Background(), "EAAGtoken", url.Values{"fields": {"id"}}, nil, "1"); err != nil {
		t.Fatal(err)
	}
	if q := got[1].URL.Query(); q.Has("appsecret_proof") || q.Get("fields") != "id" {
		t.Fatalf("without a secret: %v", q)
	}
}
