package rest_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	cases := []struct {
		name   string
		key    string
		header string
		status int
		code   string
	}{
		{"no key", "", "", 401, "invalid_api_key"},
		{"basic scheme", "", "Basic " + api.Key("test_all"), 401, "invalid_api_key"},
		{"malformed", "", "Bearer not-a-key", 401, "invalid_api_key"},
		{"truncated", "", "Bearer " + api.Key("test_all")[:40], 401, "invalid_api_key"},
		{"unknown", "", "Bearer svc_test_" + strings.Repeat("Z", 32), 401, "invalid_api_key"},
		{"revoked", "revoked", "", 401, "key_revoked"},
		{"expired", "expired", "", 401, "key_expired"},
		{"rolled past grace", "rolled_past", "", 401, "key_rolled"},
		{"rolled in grace works as its successor", "rolled_grace", "", 200, ""},
		{"free plan", "free_test", "", 403, "plan_upgrade_required"},
		{"suspended workspace", "suspended_test", "", 403, "account_inactive"},
		{"ip outside allowlist", "ip_private", "", 403, "ip_not_allowed"},
		{"ip inside allowlist", "ip_loopback", "", 200, ""},
		{"valid", "test_all", "", 200, ""},
	}
	for _, c := range cases {
		var header []string
		if c.header != "" {
			header = []string{"Authorization", c.header}
		}
		r := api.Do("GET", "/v1/conversations", c.key, nil, header...)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s: got %d %q, want %d %q", c.name, r.Status, r.Code(), c.status, c.code)
		}
		if r.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", c.name)
		}
		// RFC 9110 11.6.1: a 401 names the scheme to authenticate with.
		if got := r.Header.Get("WWW-Authenticate"); (c.status == 401) != strings.HasPrefix(got, "Bearer ") {
			t.Errorf("%s: %d with WWW-Authenticate %q", c.name, r.Status, got)
		}
	}
}

func TestRolledKeyUsesSuccessorScopes(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	// The successor may read conversations only.
	api.Want(api.Do("GET", "/v1/conversations", "rolled_grace", nil), 200, "")
	api.Want(api.Do("GET", "/v1/contacts", "rolled_grace", nil), 403, "insufficient_scope")
}

func TestKeyExpiryAndGraceFollowTheClock(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("GET", "/v1/conversations", "rolled_grace", nil), 200, "")
	api.Clock.Advance(24 * time.Hour) // grace_until is Epoch + 24h
	api.Want(api.Do("GET", "/v1/conversations", "rolled_grace", nil), 401, "key_rolled")
	api.Clock.Set(resttest.Epoch.Add(-48 * time.Hour)) // before the expired key's expiry
	api.Want(api.Do("GET", "/v1/conversations", "expired", nil), 200, "")
}

func TestErrorEnvelopeAndRequestID(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	r := api.Want(api.Do("GET", "/v1/conversations/conv_missing", "test_all", nil), 404, "conversation_not_found")
	e := r.Body["error"].(map[string]any)
	if e["request_id"] != r.Header.Get("X-Request-Id") || !strings.HasPrefix(e["request_id"].(string), "req_") {
		t.Errorf("request_id %v, header %q", e["request_id"], r.Header.Get("X-Request-Id"))
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Error("empty message")
	}
	ok := api.Want(api.Do("GET", "/v1/channels", "test_all", nil), 200, "")
	if len(ok.Body) != 1 || ok.Body["data"] == nil {
		t.Errorf("success body keys: %v", ok.Body)
	}
}

func TestVersionHeader(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	r := api.Want(api.Do("GET", "/v1/usage", "test_all", nil), 200, "")
	if got := r.Header.Get("Service-Version"); got != "2026-10-01" {
		t.Errorf("Service-Version %q", got)
	}
	api.Want(api.Do("GET", "/v1/usage", "test_all", nil, "Service-Version", "2026-10-01"), 200, "")
	api.Want(api.Do("GET", "/v1/usage", "test_all", nil, "Service-Version", "2025-01-01"), 400, "invalid_version")
	// Authentication comes before the version check.
	r = api.Want(api.Do("GET", "/v1/usage", "", nil, "Service-Version", "2025-01-01"), 401, "invalid_api_key")
	if got := r.Header.Get("Service-Version"); got != "2026-10-01" {
		t.Errorf("Service-Version on an error: %q", got)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	cases := []struct {
		method, path, key string
		body              any
		status            int
		code              string
	}{
		{"GET", "/v1/conversations", "conv_read", nil, 200, ""},
		{"PATCH", "/v1/conversations/conv_wa_1h", "conv_read", map[string]any{"tags": []string{"x"}}, 403, "insufficient_scope"},
		{"PATCH", "/v1/conversations/conv_wa_1h", "conv_write", map[string]any{"tags": []string{"x"}}, 200, ""},
		{"GET", "/v1/conversations/conv_wa_1h/messages", "conv_read", nil, 403, "insufficient_scope"},
		{"GET", "/v1/conversations/conv_wa_1h/messages", "msg_read", nil, 200, ""},
		{"GET", "/v1/contacts", "conv_read", nil, 403, "insufficient_scope"},
		{"GET", "/v1/contacts", "contacts_read", nil, 200, ""},
		{"POST", "/v1/contacts", "contacts_read", map[string]any{"email": "a@b.test"}, 403, "insufficient_scope"},
		{"DELETE", "/v1/contacts/ct_old", "contacts_read", nil, 403, "insufficient_scope"},
		{"GET", "/v1/events/evt_missing", "conv_read", nil, 403, "insufficient_scope"},
		{"GET", "/v1/channels", "conv_read", nil, 200, ""},
		{"GET", "/v1/usage", "msg_read", nil, 200, ""},
	}
	for _, c := range cases {
		r := api.Do(c.method, c.path, c.key, c.body)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s %s with %s: got %d %q, want %d %q", c.method, c.path, c.key, r.Status, r.Code(), c.status, c.code)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	// ws_main: 1000 per second, 100000 per minute; the second is tighter.
	r := api.Want(api.Do("GET", "/v1/channels", "test_all", nil), 200, "")
	if h := r.Header; h.Get("X-RateLimit-Limit") != "100000" || h.Get("X-RateLimit-Remaining") != "999" || h.Get("X-RateLimit-Reset") != "1" {
		t.Errorf("rate headers: limit %q remaining %q reset %q", h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"))
	}
	// ws_limited allows 2 per second: within a burst of 6 some must be refused.
	var limited *resttest.Response
	for i := 0; i < 6 && limited == nil; i++ {
		if r := api.Do("GET", "/v1/channels", "limited_test", nil); r.Status == 429 {
			limited = r
		}
	}
	if limited == nil {
		t.Fatal("6 requests in a burst against 2/s were all allowed")
	}
	api.Want(limited, 429, "rate_limited")
	// The refusing window is the second's.
	if h := limited.Header; h.Get("Retry-After") != "1" || h.Get("X-RateLimit-Limit") != "300" ||
		h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") != "1" {
		t.Errorf("429 headers: %v", limited.Header)
	}
}

func TestUnknownRoutesAndBadBodies(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("GET", "/v1/nothing-here", "test_all", nil), 404, "route_not_found")
	api.Want(api.Do("PUT", "/v1/conversations", "test_all", nil), 405, "method_not_allowed")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", "{not json"), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", "[1,2]"), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", ""), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": 5}), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"emial": "x@y.test"}), 400, "invalid_request")
	api.Want(api.Do("PATCH", "/v1/conversations/conv_wa_1h", "test_all", map[string]any{"tags": "vip"}), 400, "invalid_request")
	big := `{"name":"` + strings.Repeat("a", 15<<20) + `"}`
	api.Want(api.Do("POST", "/v1/contacts", "test_all", big), 400, "invalid_request")
}

func TestOpenAPINeedsNoKey(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	r := api.Want(api.Do("GET", "/v1/openapi.json", "", nil), 200, "")
	info, _ := r.Body["info"].(map[string]any)
	if r.Body["openapi"] != "3.1.0" || info["version"] != "2026-10-01" {
		t.Errorf("openapi %v, info %v", r.Body["openapi"], info)
	}
	paths, _ := r.Body["paths"].(map[string]any)
	for _, p := range []string{"/v1/conversations", "/v1/messages", "/v1/webhook-endpoints", "/v1/test/inbound"} {
		if paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
}

// TestRateLimitRemainingIsTheSmallerWindow: X-RateLimit-Limit names the
// per-minute limit (the API's contract), X-RateLimit-Remaining what is left
// of whichever window is tighter, X-RateLimit-Reset the seconds until that
// window is whole again.
func TestRateLimitRemainingIsTheSmallerWindow(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	// ws_limited: 2 per second, 300 per minute; the second is tighter.
	r := api.Want(api.Do("GET", "/v1/channels", "limited_test", nil), 200, "")
	if h := r.Header; h.Get("X-RateLimit-Limit") != "300" || h.Get("X-RateLimit-Remaining") != "1" || h.Get("X-RateLimit-Reset") != "1" {
		t.Errorf("per-second bound: %v, want 300, 1 left, whole in 1 s", h)
	}
	// With 3 per minute, the minute is tighter.
	if _, err := api.Store.DB.Exec(`UPDATE workspaces SET rate_per_second = 1000, rate_per_minute = 3 WHERE id = 'ws_other'`); err != nil {
		t.Fatal(err)
	}
	r = api.Want(api.Do("GET", "/v1/channels", "other_test", nil), 200, "")
	if h := r.Header; h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != "2" || h.Get("X-RateLimit-Reset") != "20" {
		t.Errorf("per-minute bound: %v, want 3, 2 left, whole in 20 s", h)
	}
	for i := 0; i < 2; i++ {
		api.Want(api.Do("GET", "/v1/channels", "other_test", nil), 200, "")
	}
	limited := api.Want(api.Do("GET", "/v1/channels", "other_test", nil), 429, "rate_limited")
	if after, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || after < 1 || after > 60 {
		t.Errorf("Retry-After %q: want whole seconds within the minute", limited.Header.Get("Retry-After"))
	}
}
