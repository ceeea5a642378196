package rest_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/ops/logging"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// syncBuffer is a log sink that parallel tests may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureLogs sends the default logger's JSON lines to a buffer until the
// test ends.
func captureLogs(t *testing.T) *syncBuffer {
	buf := &syncBuffer{}
	old := slog.Default()
	slog.SetDefault(logging.New("json", buf, slog.LevelInfo))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

// logLines returns the JSON log lines whose request_id is id.
func logLines(t *testing.T, logs string, key, value string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(logs, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m[key] == value {
			out = append(out, m)
		}
	}
	return out
}

func TestRequestMetricsUseTheRoutePattern(t *testing.T) {
	api := resttest.New(t)
	route := map[string]string{"route": "/v1/conversations/{id}", "status": "200", "method": "GET"}
	before := metricstest.Scrape(t)
	for range 3 {
		api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "test_all", nil), 200, "")
	}
	api.Want(api.Do("GET", "/v1/conversations/conv_missing", "test_all", nil), 404, "conversation_not_found")
	after := metricstest.Scrape(t)
	if got := after.Value("msgsvc_http_requests_total", route) - before.Value("msgsvc_http_requests_total", route); got != 3 {
		t.Fatalf("requests_total for the pattern grew by %v, want 3", got)
	}
	if after.Type("msgsvc_http_request_duration_seconds") != "HISTOGRAM" {
		t.Fatalf("duration is a %s", after.Type("msgsvc_http_request_duration_seconds"))
	}
	if got := after.Value("msgsvc_http_request_duration_seconds", route) - before.Value("msgsvc_http_request_duration_seconds", route); got != 3 {
		t.Fatalf("duration histogram counted %v requests, want 3", got)
	}
	notFound := map[string]string{"route": "/v1/conversations/{id}", "status": "404"}
	if after.Value("msgsvc_http_requests_total", notFound)-before.Value("msgsvc_http_requests_total", notFound) != 1 {
		t.Fatal("the 404 is not counted under its pattern and status")
	}
	for _, r := range after.LabelValues("msgsvc_http_requests_total", "route") {
		if strings.Contains(r, "conv_") {
			t.Fatalf("a raw path became a label: %q", r)
		}
	}
}

func TestOneLogLinePerRequest(t *testing.T) {
	logs := captureLogs(t)
	api := resttest.New(t)
	resp := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "test_all", nil), 200, "")
	id := resp.Header.Get("X-Request-Id")
	lines := logLines(t, logs.String(), "request_id", id)
	if len(lines) != 1 {
		t.Fatalf("want one line for %s, got %d: %s", id, len(lines), logs.String())
	}
	l := lines[0]
	if l["msg"] != "request" || l["route"] != "/v1/conversations/{id}" || l["status"] != float64(200) ||
		l["workspace"] != "ws_main" || l["livemode"] != false || l["method"] != "GET" {
		t.Fatalf("line %v", l)
	}
	if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
		t.Fatalf("duration_ms %v", l["duration_ms"])
	}
	// An unauthenticated request has its line too, without a workspace.
	bad := api.Do("GET", "/v1/channels", "", nil)
	lines = logLines(t, logs.String(), "request_id", bad.Header.Get("X-Request-Id"))
	if len(lines) != 1 || lines[0]["status"] != float64(401) || lines[0]["workspace"] != nil {
		t.Fatalf("401 lines %v", lines)
	}
}

func TestProbesNeedNoKey(t *testing.T) {
	api := resttest.New(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp := api.Do("GET", path, "", nil)
		if resp.Status != 200 || resp.Body["status"] != "ok" {
			t.Fatalf("%s: %d %s", path, resp.Status, resp.Raw)
		}
	}
}

func TestQueueDashboardNeedsTheAdminToken(t *testing.T) {
	dashboard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("dashboard " + r.URL.Path))
	})
	api := resttest.New(t, func(a *resttest.API) { a.Server.Queues = dashboard })
	get := func(path string, set func(*http.Request)) (int, http.Header, string) {
		req, _ := http.NewRequest("GET", api.HTTP.URL+path, nil)
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, resp.Header, b.String()
	}
	for name, set := range map[string]func(*http.Request){
		"no token":      func(*http.Request) {},
		"a key":         func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+api.Key("test_all")) },
		"wrong basic":   func(r *http.Request) { r.SetBasicAuth("admin", "nope") },
		"wrong bearer":  func(r *http.Request) { r.Header.Set("Authorization", "Bearer admin-tokenX") },
		"empty bearer":  func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") },
		"basic as user": func(r *http.Request) { r.SetBasicAuth("admin-token", "") },
	} {
		code, h, body := get(rest.QueuesPath+"/api/queues", set)
		if code != 401 || !strings.Contains(body, `"invalid_api_key"`) || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("%s: %d %q %s", name, code, h.Get("WWW-Authenticate"), body)
		}
	}
	for name, set := range map[string]func(*http.Request){
		"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer admin-token") },
		"basic":  func(r *http.Request) { r.SetBasicAuth("anyone", "admin-token") },
	} {
		code, _, body := get(rest.QueuesPath+"/api/queues", set)
		if code != 200 || body != "dashboard "+rest.QueuesPath+"/api/queues" {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
}

func TestSendAndProviderMetrics(t *testing.T) {
	api := resttest.New(t)
	sent := map[string]string{"channel": "whatsapp", "mode": "test", "outcome": "sent"}
	closed := map[string]string{"channel": "whatsapp", "mode": "test", "outcome": "window_closed"}
	liveRefused := map[string]string{"channel": "whatsapp", "mode": "live", "outcome": "channel_unavailable"}
	call := map[string]string{"channel": "whatsapp", "outcome": "channel_unavailable"}
	connectProviders(api)
	// The provider answers that it cannot take the message: one call, counted
	// under the code it maps to.
	api.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"whatsapp": &countingRefuser{
			refusal: channels.Refusal{Code: apierr.ChannelUnavailable, Reason: "131000: something went wrong"}}}
	})
	before := metricstest.Scrape(t)
	api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "hi"}), 201, "")
	// A reply refused before anything is sent still counts under its
	// conversation's channel.
	api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_25h", "text": "x"}), 422, "window_closed")
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": "conv_live", "text": "hi"}), 503, "channel_unavailable")
	after := metricstest.Scrape(t)
	for name, labels := range map[string]map[string]string{"sent": sent, "window_closed": closed, "live refusal": liveRefused} {
		if d := after.Value("msgsvc_sends_total", labels) - before.Value("msgsvc_sends_total", labels); d != 1 {
			t.Errorf("%s: sends_total grew by %v, want 1", name, d)
		}
	}
	// Only the live send reached a provider step; the sandbox is no provider.
	if d := after.Value("msgsvc_provider_calls_total", call) - before.Value("msgsvc_provider_calls_total", call); d != 1 {
		t.Errorf("provider_calls_total grew by %v, want 1", d)
	}
	if d := after.Value("msgsvc_provider_call_duration_seconds", call) - before.Value("msgsvc_provider_call_duration_seconds", call); d != 1 {
		t.Errorf("provider call duration counted %v, want 1", d)
	}
	if d := after.Value("msgsvc_provider_calls_total", map[string]string{"outcome": "ok"}) - before.Value("msgsvc_provider_calls_total", map[string]string{"outcome": "ok"}); d != 0 {
		t.Errorf("a sandbox send counted as a provider call")
	}
}
