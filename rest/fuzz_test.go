package rest_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The fuzz targets run requests in process through the whole handler
// (authentication, decoding, the resolvers, Postgres): no input may answer a
// 5xx, which is also what a panic becomes. The seed corpus is in
// testdata/fuzz/<target>; `make fuzz` runs each target for FUZZTIME.

// fuzzAPI is the API over its own seeded database, without rate limits (a
// fuzzer is faster than any), with an endpoint to change, and then with
// webhook verification refusing private addresses and bounded in time.
func fuzzAPI(f *testing.F) (*resttest.API, http.Handler, string) {
	quietLogs(f)
	api := resttest.New(f, func(a *resttest.API) {
		a.Server.Limiter = nil
		a.Config.Webhooks = resttest.WebhookConfig()
	})
	rc := resttest.NewReceiver(f, nil)
	endpoint, _ := api.Want(api.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": rc.URL}), 201, "").Data()["id"].(string)
	api.Reconfigure(func(c *resttest.Config) { c.Webhooks = &webhook.Config{Timeout: 200 * time.Millisecond} })
	return api, api.Server.Handler(), endpoint
}

// quietLogs drops log lines until the fuzz target or benchmark ends: a line
// per request would be most of a fuzzer's time. Tests have ended when fuzz
// targets and benchmarks run, so no one else is logging.
func quietLogs(t testing.TB) {
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slog.SetDefault(logger) })
}

// fuzzServe answers one request in process and fails on a 5xx or on an
// answer that is not the JSON envelope.
func fuzzServe(t *testing.T, h http.Handler, req *http.Request, envelope bool) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code >= 500 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, w.Code, w.Body.Bytes())
	}
	if envelope && !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%s %s: %d answered no JSON: %q", req.Method, req.URL, w.Code, w.Body.Bytes())
	}
}

// FuzzRequestBody: every route that takes a JSON body, chosen by route,
// with any body and any Idempotency-Key.
func FuzzRequestBody(f *testing.F) {
	api, h, endpoint := fuzzAPI(f)
	key := api.Key("test_all")
	routes := []struct{ method, path string }{
		{"POST", "/v1/messages"},
		{"POST", "/v1/whatsapp/marketing-messages"},
		{"POST", "/v1/contacts"},
		{"PATCH", "/v1/contacts/ct_old"},
		{"PATCH", "/v1/conversations/conv_wa_1h"},
		{"POST", "/v1/webhook-endpoints"},
		{"PATCH", "/v1/webhook-endpoints/" + endpoint},
		{"POST", "/v1/webhook-endpoints/" + endpoint + "/roll-secret"},
		{"POST", "/v1/webhook-deliveries/del_missing/replay"},
		{"POST", "/v1/test/inbound"},
		{"POST", "/v1/files"},
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte, idempotencyKey string) {
		rt := routes[int(route)%len(routes)]
		req := httptest.NewRequest(rt.method, rt.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if idempotencyKey != "" {
			req.Header["Idempotency-Key"] = []string{idempotencyKey}
		}
		fuzzServe(t, h, req, true)
	})
}

// FuzzQuery: every GET route, chosen by route, with any id in its path and
// any query string (list filters, cursors, limit, file link signatures).
func FuzzQuery(f *testing.F) {
	api, h, _ := fuzzAPI(f)
	key := api.Key("test_all")
	routes := []string{
		"/v1/conversations",
		"/v1/conversations/{id}",
		"/v1/conversations/{id}/messages",
		"/v1/contacts",
		"/v1/contacts/{id}",
		"/v1/messages/{id}",
		"/v1/messaging-window",
		"/v1/events/{id}",
		"/v1/webhook-endpoints",
		"/v1/webhook-deliveries",
		"/v1/whatsapp/templates",
		"/v1/email/senders",
		"/v1/channels",
		"/v1/usage",
		"/v1/files/{id}/content",
	}
	f.Fuzz(func(t *testing.T, route uint8, id, rawQuery string) {
		path := routes[int(route)%len(routes)]
		target := strings.Replace(path, "{id}", url.PathEscape(id), 1) + "?" + rawQuery
		req, err := http.NewRequest("GET", target, nil)
		if err != nil {
			return // not a request line a client can send
		}
		req.Header.Set("Authorization", "Bearer "+key)
		fuzzServe(t, h, req, !strings.HasSuffix(path, "/content"))
	})
}

// FuzzWidgetBody: the website widget's visitor API, public by design, with
// any body on each of its routes from a website's page and visitor.
func FuzzWidgetBody(f *testing.F) {
	quietLogs(f)
	api := widgetAPI(f, 0, time.Hour) // no rate limit
	token, _ := session(api, nil)["visitor_token"].(string)
	h := api.Server.Handler()
	routes := []string{"/widget/v1/sessions", "/widget/v1/messages", "/widget/v1/rating"}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		req := httptest.NewRequest("POST", routes[int(route)%len(routes)], bytes.NewReader(body))
		req.Header.Set("Origin", mainOrigin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Visitor "+token)
		fuzzServe(t, h, req, true)
	})
}
