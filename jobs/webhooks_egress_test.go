package jobs_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestEgressRefusesInternalAddressesUnlessInsecure(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, &webhook.Config{}) // insecure mode off
	rc := resttest.NewReceiver(t, nil)
	u, _ := url.Parse(rc.URL)
	port := u.Port()

	r := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": rc.URL}), 400, "invalid_request")
	if msg, _ := r.Body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "MSGSVC_WEBHOOK_ALLOW_INSECURE") {
		t.Errorf("http:// refused with %q; want the message to name MSGSVC_WEBHOOK_ALLOW_INSECURE", msg)
	}
	cases := []struct{ url, refusal string }{
		{"https://127.0.0.1:" + port + "/hook", "msgsvc refused to connect to 127.0.0.1: a loopback address"},
		{"https://[::7f00:1]:" + port + "/hook", "msgsvc refused to connect to ::7f00:1 (127.0.0.1): a loopback address"},
		{"https://[::ffff:0:7f00:1]:" + port + "/hook", "msgsvc refused to connect to ::ffff:0:7f00:1 (127.0.0.1): a loopback address"},
		{"https://[::ffff:127.0.0.1]:" + port + "/hook", "msgsvc refused to connect to 127.0.0.1: a loopback address"},
		{"https://localhost:" + port + "/hook", "a loopback address"}, // refused after DNS
		{"https://[::1]:" + port + "/hook", "refused to connect to ::1: a loopback address"},
		{"https://169.254.169.254/latest/meta-data/", "refused to connect to 169.254.169.254: a link-local address"},
		{"https://10.1.2.3/hook", "refused to connect to 10.1.2.3: a private address"},
		{"https://100.100.100.200/hook", "refused to connect to 100.100.100.200: a reserved address"},
	}
	for _, c := range cases {
		d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": c.url}), 201, "").Data()
		v, _ := d["verification"].(map[string]any)
		reason, _ := v["reason"].(string)
		if d["status"] != "unverified" || v["verified"] != false || !strings.Contains(reason, c.refusal) {
			t.Errorf("%s: status %v, verification %v; want a refusal naming %q", c.url, d["status"], v, c.refusal)
		}
	}
	if n := len(rc.Events()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}

	// Deliveries are refused the same way, at connect time: an endpoint
	// verified earlier (say, before the address was moved) gets nothing.
	ep := w.CreateEndpoint("https://127.0.0.1:"+port+"/hook", onlyMessages)
	now := w.Clock.Now()
	if err := w.Store.SetWebhookVerified(t.Context(), ep.ID, "https://127.0.0.1:"+port+"/hook", &now); err != nil {
		t.Fatal(err)
	}
	w.Inbound("website", "visitor-ssrf", "hello")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	id := newest(w, ep.ID)
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	d := w.Delivery(id)
	if d.Status != "retrying" || d.LastResponseStatus != nil ||
		!strings.HasPrefix(*d.LastError, "msgsvc refused to connect to 127.0.0.1: a loopback address") || len(rc.Events()) != 0 {
		t.Errorf("delivery %+v, last_error %q", d, *d.LastError)
	}
}

func TestEgressFollowsNoRedirectAndReadsLittle(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	var targetHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { targetHits.Add(1) }))
	t.Cleanup(target.Close)
	redirector := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirector.Close)
	// Echoes the challenge after 70 KB of padding: past what is read.
	bloated := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var e struct {
			Data struct {
				Challenge string `json:"challenge"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&e)
		_ = json.NewEncoder(rw).Encode(map[string]string{"a": strings.Repeat("x", 70<<10), "challenge": e.Data.Challenge})
	}))
	t.Cleanup(bloated.Close)

	cases := []struct{ url, reason string }{
		{redirector.URL, "the endpoint answered HTTP 307; redirects are not followed"},
		{bloated.URL, "the answer did not echo data.challenge"},
	}
	for _, c := range cases {
		d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": c.url}), 201, "").Data()
		reason, _ := d["verification"].(map[string]any)["reason"].(string)
		if d["status"] != "unverified" || !strings.HasPrefix(reason, c.reason) {
			t.Errorf("%s: status %v, reason %q, want %q", c.url, d["status"], reason, c.reason)
		}
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
}

// A verification reason names the host the URL gives and the cause, never
// an address DNS answered for it: refused by the egress rule, or a
// connection the (insecure, development) endpoint refused.
func TestEgressReasonsHideWhatANameResolvesTo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		insecure bool
		url      string
		want     string
	}{
		{false, "https://localhost:8443/hook", "msgsvc refused to connect to localhost: it resolves to a loopback address"},
		{true, "http://localhost:1/hook", "the endpoint could not be reached: connection refused"},
	}
	for _, c := range cases {
		w := resttest.NewWorld(t, &webhook.Config{AllowInsecure: c.insecure})
		d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": c.url}), 201, "").Data()
		reason, _ := d["verification"].(map[string]any)["reason"].(string)
		if !strings.HasPrefix(reason, c.want) || strings.Contains(reason, "127.0.0.1") || strings.Contains(reason, "::1") {
			t.Errorf("%s: reason %q, want %q and no address", c.url, reason, c.want)
		}
	}
}
