package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/widget"
	"github.com/redis/go-redis/v9"
)

// deadRedis is a Redis client of an address nobody listens on.
func deadRedis(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestRedisOutageLeavesReadsAndSends: with the rate limiter's Redis down,
// reads and sends are answered, limited in the process with the
// workspace's own limits.
func TestRedisOutageLeavesReadsAndSends(t *testing.T) {
	t.Parallel()
	api := resttest.New(t, func(a *resttest.API) {
		dead := deadRedis(t)
		a.Server.Limiter = rest.NewRedisLimiter(dead)
		// What a send hands to Redis after its commit (the fan-out, the
		// widget wake-up) fails too; the sweeps redo it.
		queue := jobs.NewClient(asynq.RedisClientOpt{Addr: dead.Options().Addr})
		t.Cleanup(func() { queue.Close() })
		a.Config.Jobs = queue
		a.Config.CommitListener = widget.Publish{Redis: dead}
	})
	r := api.Want(api.Do("GET", "/v1/conversations", "test_all", nil), 200, "")
	if r.Header.Get("X-RateLimit-Limit") != "100000" || r.Header.Get("X-RateLimit-Remaining") != "999" {
		t.Errorf("rate headers with Redis down: %v", r.Header)
	}
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-outage"})
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": conv, "text": "still here"}), 201, "")

	// ws_other allows 3 per minute: the fourth request is refused as it
	// would be with Redis up.
	dbExec(t, api, `UPDATE workspaces SET rate_per_second = 1000, rate_per_minute = 3 WHERE id = 'ws_other'`)
	for i, want := range []string{"2", "1", "0"} {
		r := api.Want(api.Do("GET", "/v1/channels", "other_test", nil), 200, "")
		if got := r.Header.Get("X-RateLimit-Remaining"); got != want {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %q", i, got, want)
		}
	}
	limited := api.Want(api.Do("GET", "/v1/channels", "other_test", nil), 429, "rate_limited")
	if after, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || after < 1 || after > 60 {
		t.Errorf("Retry-After %q: want whole seconds within the minute", limited.Header.Get("Retry-After"))
	}
}

// TestRedisOutageQueueDashboard: the queue dashboard reads nothing but
// Redis, so without it it answers 503 service_unavailable with Retry-After.
func TestRedisOutageQueueDashboard(t *testing.T) {
	t.Parallel()
	dashboard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("dashboard")) })
	for name, tc := range map[string]struct {
		rdb    func(*resttest.API) *redis.Client
		status int
		code   string
		after  string
	}{
		"Redis up":   {func(a *resttest.API) *redis.Client { return a.Redis }, 200, "", ""},
		"Redis down": {func(*resttest.API) *redis.Client { return deadRedis(t) }, 503, "service_unavailable", "5"},
	} {
		api := resttest.New(t, func(a *resttest.API) {
			rdb := tc.rdb(a)
			a.Server.Queues = dashboard
			a.Server.QueuesRedis = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
		})
		req, _ := http.NewRequest("GET", api.HTTP.URL+rest.QueuesPath+"/api/queues", nil)
		req.Header.Set("Authorization", "Bearer admin-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := &resttest.Response{Status: resp.StatusCode, Header: resp.Header}
		r.Raw, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if tc.code != "" {
			r = decoded(t, r)
		}
		if r.Status != tc.status || r.Code() != tc.code || r.Header.Get("Retry-After") != tc.after {
			t.Errorf("%s: %d %q Retry-After %q: %s", name, r.Status, r.Code(), r.Header.Get("Retry-After"), r.Raw)
		}
	}
}

// TestPostgresOutage: requests that reach a Postgres that went away
// (connections refused, or accepted and never answered) are 503
// service_unavailable with Retry-After, never 500: on authentication, and
// on the route itself once the key is in the cache; GraphQL names the code.
func TestPostgresOutage(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"refused", "silent"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			proxy := startPGProxy(t)
			api := resttest.New(t, func(a *resttest.API) {
				a.Config.Store = proxy.store(t, a.Store)
				a.Config.KeyCache = &auth.CachedKeys{Store: a.Config.Store, Clock: a.Clock.Now, TTL: time.Hour}
				a.Server.Meta = rest.MetaHooks{AppSecret: hookSecret}
			})
			api.Want(api.Do("GET", "/v1/conversations", "test_all", nil), 200, "") // warms the key cache
			proxy.stop(mode == "silent")
			for _, r := range []*resttest.Response{
				api.Do("GET", "/v1/conversations", "test_all", nil), // the cached key passes; the list fails
				api.Do("GET", "/v1/channels", "live_all", nil),      // the key is read from Postgres
				sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "hi"}),
			} {
				api.Want(r, 503, "service_unavailable")
				if r.Header.Get("Retry-After") != "5" {
					t.Errorf("Retry-After %q, want 5", r.Header.Get("Retry-After"))
				}
			}
			// Meta's hooks are not stored: 503 with Retry-After, so Meta
			// retries them, never 500.
			raw := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
			req, _ := http.NewRequest("POST", api.HTTP.URL+"/hooks/meta", bytes.NewReader(raw))
			req.Header.Set("X-Hub-Signature-256", signature(raw))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "5" {
				t.Errorf("/hooks/meta with Postgres down: %d Retry-After %q, want 503 and 5", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			// A payload the global secret does not verify makes the hook
			// read the accounts' app secrets (503 while Postgres is down),
			// unless its signature header has not even the form of one:
			// then no secret is read and it is refused at once.
			ig := []byte(`{"object":"instagram","entry":[{"id":"17841400000000001","time":1,"messaging":[]}]}`)
			for header, want := range map[string]int{signature(append(ig, ' ')): 503, "sha256=nothex": 401, "": 401} {
				req, _ := http.NewRequest("POST", api.HTTP.URL+"/hooks/meta", bytes.NewReader(ig))
				req.Header.Set("X-Hub-Signature-256", header)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("/hooks/meta signed %q with Postgres down: %d, want %d", header, resp.StatusCode, want)
				}
			}
			// GraphQL answers 200 with the error's code, as for any error.
			status, body := graphql(t, api, "admin-token", "ws_main", `{ usage { period } }`)
			var code any
			if errs, _ := body["errors"].([]any); len(errs) == 1 {
				first, _ := errs[0].(map[string]any)
				ext, _ := first["extensions"].(map[string]any)
				code = ext["code"]
			}
			if status != 200 || code != "service_unavailable" {
				t.Errorf("GraphQL with Postgres down: %d %v", status, body)
			}
		})
	}
}

// decoded parses a response's JSON body.
func decoded(t *testing.T, r *resttest.Response) *resttest.Response {
	t.Helper()
	if err := json.Unmarshal(r.Raw, &r.Body); err != nil {
		t.Fatalf("%v: %s", err, r.Raw)
	}
	return r
}

// pgProxy forwards TCP to the test Postgres until stopped; then it refuses
// connections, or accepts them and never answers.
type pgProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	silent bool
	closed bool
}

func startPGProxy(t *testing.T) *pgProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln}
	target, err := url.Parse(repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, c)
			silent := p.silent
			p.mu.Unlock()
			if silent {
				continue // held open, never answered
			}
			up, err := net.Dial("tcp", target.Host)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() { p.stop(false) })
	return p
}

// store opens the database of base through the proxy, with a 1 s connect
// timeout (so a silent server is given up on).
func (p *pgProxy) store(t *testing.T, base *repo.Store) *repo.Store {
	var name string
	if err := base.DB.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Host, u.Path = p.ln.Addr().String(), "/"+name
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()
	store, err := repo.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// stop cuts every connection; silent keeps accepting new ones without
// answering, otherwise the port is closed and connections are refused.
func (p *pgProxy) stop(silent bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.silent = silent
	if !silent && !p.closed {
		p.closed = true
		p.ln.Close()
	}
}
