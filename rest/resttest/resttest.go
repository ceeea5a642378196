// Package resttest runs the /v1 API over a fresh database seeded with
// rest/testdata/fixture.json, on an injected clock, for tests of any package.
package resttest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/redis/go-redis/v9"
)

// Epoch is the fixture's "now": its history is written relative to it.
var Epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// Clock is a settable clock for time-dependent rules.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// API is a running /v1 over its own database.
type API struct {
	T     testing.TB
	Store *repo.Store
	// Config is what Resolver was built from: configure hooks set it
	// before New builds the services; Reconfigure rebuilds them later.
	Config   graph.Config
	Resolver *graph.Resolver
	Server   *rest.Server
	HTTP     *httptest.Server
	Clock    *Clock
	Redis    *redis.Client
	// Prefix namespaces this test's Redis keys.
	Prefix string
	keys   map[string]string
}

// RedisURL is the Redis tests use: repotest.RedisURL.
func RedisURL() string { return repotest.RedisURL() }

// FixturePath is rest/testdata/fixture.json.
func FixturePath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "fixture.json")
}

// New starts the API on a fresh seeded database. configure, if given, may
// change the Config the services are built from and the server before the
// first request (to add jobs, adapters or routes). Under a benchmark the answers are not validated against
// rest/openapi.json.
func New(t testing.TB, configure ...func(*API)) *API {
	t.Helper()
	store := repotest.NewStore(t)
	clock := NewClock(Epoch)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	a := &API{T: t, Store: store, Clock: clock, Redis: rdb, Prefix: "test:" + hex.EncodeToString(b) + ":"}
	sealKey, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	// As a serving process has it: event streams share their horizon reads.
	a.Config = graph.Config{Store: store, Secret: "test-secret-0123456789", Seal: sealKey, Clock: clock.Now,
		StreamHorizon: &eventstream.SharedHorizon{Store: store, Every: eventstream.DefaultPoll}}
	limiter := rest.NewRedisLimiter(rdb)
	limiter.Prefix = a.Prefix
	// The request log is written when a test calls FlushRequestLog: no
	// writer runs beside the test's own statements.
	a.Server = &rest.Server{Limiter: limiter, AdminToken: "admin-token", RequestLog: requestlog.NewRecorder(store, 1024)}
	f, err := os.Open(FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, _ := io.ReadAll(f)
	fixture, err := seed.ParseFixture(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&seed.Seeder{Store: store, Clock: clock.Now}).Seed(t.Context(), fixture); err != nil {
		t.Fatalf("seed: %v", err)
	}
	a.keys = map[string]string{}
	for _, w := range fixture.Workspaces {
		for _, k := range w.Keys {
			a.keys[strings.TrimPrefix(k.ID, "key_")] = k.Secret
		}
	}
	for _, c := range configure {
		c(a)
	}
	a.build()
	a.Server.Resolver = a.Resolver
	var h http.Handler = a.Server.Handler()
	if _, bench := t.(*testing.B); !bench {
		// Tests check every exchange against rest/openapi.json; benchmarks
		// measure the server, and the validation costs several times a
		// read's own work (docs/performance.md).
		h = ValidateAgainstOpenAPI(t, h)
	}
	a.HTTP = httptest.NewServer(h)
	t.Cleanup(a.HTTP.Close)
	return a
}

// Reconfigure changes the Config and rebuilds the services from it, in
// place: the running server answers with the new ones, and a configure
// hook may use them at once. A service taken from Resolver before keeps
// the Config it was built from. Call it between requests, never during
// one.
func (a *API) Reconfigure(change func(*Config)) {
	change(&a.Config)
	a.build()
}

// build builds the services from Config into Resolver, keeping its
// address.
func (a *API) build() {
	if a.Resolver == nil {
		a.Resolver = new(graph.Resolver)
	}
	*a.Resolver = *graph.New(a.Config)
}

// FlushRequestLog writes the request log rows and keys' last use of the
// requests answered so far.
func (a *API) FlushRequestLog() { a.Server.RequestLog.Flush(a.T.Context()) }

// Key returns the secret of a fixture key by name ("test_all", "live_all", …).
func (a *API) Key(name string) string {
	s, ok := a.keys[name]
	if !ok {
		a.T.Fatalf("no fixture key %q", name)
	}
	return s
}

// Response is one answer, its body parsed as JSON.
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Data returns the data object of a success.
func (r *Response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// Items returns data.items of a list.
func (r *Response) Items() []any {
	items, _ := r.Data()["items"].([]any)
	return items
}

// Code returns error.code of an error.
func (r *Response) Code() string {
	e, _ := r.Body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Do calls the API with a fixture key by name ("" sends none) and a JSON
// body (nil sends none; a string or []byte is sent as is).
func (a *API) Do(method, path, key string, body any, header ...string) *Response {
	a.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.HTTP.URL+path, rd)
	if err != nil {
		a.T.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+a.Key(key))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.T.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// Want fails the test unless the response has the status (and, for errors,
// the code); it returns the response.
func (a *API) Want(r *Response, status int, code string) *Response {
	a.T.Helper()
	if r.Status != status || r.Code() != code {
		a.T.Fatalf("got %d %q, want %d %q: %s", r.Status, r.Code(), status, code, r.Raw)
	}
	return r
}

// Inbound injects a sandbox customer message with the all-scopes test key
// and returns its data.
func (a *API) Inbound(channel, from, text string) map[string]any {
	a.T.Helper()
	r := a.Want(a.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": channel, "from": from, "name": "Customer", "text": text,
	}), 201, "")
	return r.Data()
}

// Event is one recorded event as the outbox holds it.
type Event struct {
	Type     string
	Envelope map[string]any
}

// Events returns the events recorded for a workspace, in order.
func (a *API) Events(workspaceID string) []Event {
	a.T.Helper()
	var rows []struct {
		Type     string `db:"type"`
		Envelope []byte `db:"envelope"`
	}
	if err := a.Store.DB.Select(&rows, `SELECT type, envelope FROM events WHERE workspace_id = $1 ORDER BY seq`, workspaceID); err != nil {
		a.T.Fatal(err)
	}
	out := make([]Event, len(rows))
	for i, r := range rows {
		out[i].Type = r.Type
		if err := json.Unmarshal(r.Envelope, &out[i].Envelope); err != nil {
			a.T.Fatal(err)
		}
	}
	return out
}

// Config is graph.Config, for configure hooks and Reconfigure.
type Config = graph.Config
