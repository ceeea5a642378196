package resttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// World is the /v1 API with real webhook workers: a seeded database, an
// asynq queue of the test's own on the real Redis, an injected clock, and
// httptest receivers that record what they get.
type World struct {
	*API
	Client *jobs.Client
	Queue  string
	Redis  asynq.RedisConnOpt
}

// WebhookConfig is the webhook configuration tests start from: plain-HTTP
// receivers on loopback allowed, the default schedule, and a sweep that
// re-enqueues as soon as a delivery is due.
func WebhookConfig() *webhook.Config { return &webhook.Config{AllowInsecure: true} }

// NewWorld starts the API with cfg (WebhookConfig() when nil) and a queue of its own;
// call StartWorker to process it. configure hooks run as New's, after the
// world's own.
func NewWorld(t testing.TB, cfg *webhook.Config, configure ...func(*API)) *World {
	t.Helper()
	repotest.NeedsRedis(t)
	if cfg == nil {
		cfg = WebhookConfig()
	}
	opt, err := asynq.ParseRedisURI(RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	w := &World{Queue: NewQueueName(), Redis: opt}
	w.Client = jobs.NewClient(opt)
	w.Client.Queue = w.Queue
	// Registered first, so it runs after the workers have stopped.
	t.Cleanup(func() {
		_ = w.Client.Close()
		DropQueue(t, w.Queue)
		DropQueue(t, jobs.WebhookQueue(w.Queue))
	})
	w.API = New(t, append([]func(*API){func(a *API) {
		a.Config.Webhooks = cfg
		a.Config.Jobs = w.Client
	}}, configure...)...)
	return w
}

// StartWorker starts a worker process's worth of asynq server on the
// world's queue; it stops when the test ends.
func (w *World) StartWorker() *asynq.Server {
	w.T.Helper()
	srv := jobs.NewServerOn(w.Redis, 10, w.Queue)
	mux := asynq.NewServeMux()
	jobs.RegisterWebhooks(mux, w.Resolver.Webhooks)
	if err := srv.Start(mux); err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(srv.Shutdown)
	return srv
}

// SandboxScope is the repo scope of the all-scopes test key.
var SandboxScope = repo.Scope{WorkspaceID: "ws_main"}

// Eventually is repotest.Eventually, for the API's tests.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	repotest.Eventually(t, what, cond)
}

// Delivery reads a sandbox delivery as stored.
func (w *World) Delivery(id string) *repo.WebhookDelivery {
	w.T.Helper()
	d, err := w.Store.WebhookDelivery(w.T.Context(), SandboxScope, id)
	if err != nil {
		w.T.Fatalf("delivery %s: %v", id, err)
	}
	return d
}

// WaitDelivery waits until a delivery satisfies cond and returns it.
func (w *World) WaitDelivery(id, what string, cond func(*repo.WebhookDelivery) bool) *repo.WebhookDelivery {
	w.T.Helper()
	var d *repo.WebhookDelivery
	Eventually(w.T, "delivery "+id+" "+what, func() bool {
		d = w.Delivery(id)
		return cond(d)
	})
	return d
}

// FannedOut waits until every recorded event has produced its deliveries.
func (w *World) FannedOut() {
	w.T.Helper()
	Eventually(w.T, "the fan-out", func() bool {
		parts, err := w.Store.UnfannedPartitions(w.T.Context())
		return err == nil && len(parts) == 0
	})
}

// Deliveries lists an endpoint's deliveries through the API, newest first.
func (w *World) Deliveries(endpointID, key string) []map[string]any {
	w.T.Helper()
	r := w.Want(w.Do("GET", "/v1/webhook-deliveries?limit=100&endpoint_id="+endpointID, key, nil), 200, "")
	var out []map[string]any
	for _, item := range r.Items() {
		out = append(out, item.(map[string]any))
	}
	return out
}

// Endpoint is an endpoint a test created.
type Endpoint struct {
	ID     string
	Secret string
	Data   map[string]any
}

// CreateEndpoint creates an endpoint with the all-scopes test key; body
// fields override the defaults (all events, test events on).
func (w *World) CreateEndpoint(url string, body map[string]any) Endpoint {
	w.T.Helper()
	in := map[string]any{"url": url, "events": []string{"*"}, "testEvents": true}
	for k, v := range body {
		in[k] = v
	}
	d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", in), 201, "").Data()
	secret, _ := d["secret"].(string)
	return Endpoint{ID: d["id"].(string), Secret: secret, Data: d}
}

// Request is one request a receiver got.
type Request struct {
	Header   http.Header
	Body     []byte
	Envelope map[string]any
}

// Type is the envelope's type.
func (r Request) Type() string { s, _ := r.Envelope["type"].(string); return s }

// ID is the envelope's id.
func (r Request) ID() string { s, _ := r.Envelope["id"].(string); return s }

// Data is the envelope's data.
func (r Request) Data() map[string]any { d, _ := r.Envelope["data"].(map[string]any); return d }

// Receiver is an httptest endpoint: it answers verification with the
// challenge and records every other event.
type Receiver struct {
	URL    string
	answer func(n int, r Request) int

	mu     sync.Mutex
	events []Request
}

// NewReceiver starts a receiver; answer gives the status for the n-th event
// (from 1) and may block. nil answers 200 to every event.
func NewReceiver(t testing.TB, answer func(n int, r Request) int) *Receiver {
	if answer == nil {
		answer = func(int, Request) int { return 200 }
	}
	rc := &Receiver{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.Envelope)
	if req.Type() == webhook.EventEndpointVerification {
		w.Header().Set("Content-Type", "application/json")
		echo := map[string]any{}
		if r.URL.Path != "/noverify" {
			echo["challenge"] = req.Data()["challenge"]
		}
		_ = json.NewEncoder(w).Encode(echo)
		return
	}
	rc.mu.Lock()
	rc.events = append(rc.events, req)
	n := len(rc.events)
	rc.mu.Unlock()
	w.WriteHeader(rc.answer(n, req))
}

// NoVerifyURL is a URL of the receiver that answers the verification event
// 200 {} without the challenge, and everything else as URL does.
func (rc *Receiver) NoVerifyURL() string { return strings.TrimSuffix(rc.URL, "/hook") + "/noverify" }

// Events returns the events received so far, oldest first.
func (rc *Receiver) Events() []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Request(nil), rc.events...)
}

// WaitEvents waits until n events have arrived and returns them all.
func (rc *Receiver) WaitEvents(t testing.TB, n int) []Request {
	t.Helper()
	Eventually(t, "events at the receiver", func() bool { return len(rc.Events()) >= n })
	return rc.Events()
}
