package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// installation is msgsvc as an operator runs it: the binary built from this
// package, a database seeded with rest/testdata/fixture.json by `msgsvc
// seed`, and an asynq queue of its own on the test Redis.
type installation struct {
	t     *testing.T
	bin   string
	env   map[string]string
	addr  string
	store *repo.Store
}

// newInstallation builds the binary and prepares its database; env adds
// to or overrides the variables every process gets.
func newInstallation(t *testing.T, env map[string]string) *installation {
	t.Helper()
	repotest.NeedsPostgres(t) // before the build, which -short skips too
	bin := filepath.Join(t.TempDir(), "msgsvc")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	store, dsn := repotest.NewStoreURL(t)
	queue := resttest.NewQueueName()
	t.Cleanup(func() {
		resttest.DropQueue(t, queue)
		resttest.DropQueue(t, jobs.WebhookQueue(queue))
	})
	in := &installation{t: t, bin: bin, store: store, addr: freeAddr(t), env: map[string]string{
		"DATABASE_URL": dsn, "REDIS_URL": resttest.RedisURL(), "MSGSVC_QUEUE": queue,
		"MSGSVC_SECRET": "process-test-secret-0123456789abcdef", "MSGSVC_ADMIN_TOKEN": "process-test-admin-token-0123456789abcdef",
		"MSGSVC_WEBHOOK_ALLOW_INSECURE": "true", "MSGSVC_SANDBOX_DELIVERY_DELAY": "300ms",
		"MSGSVC_SWEEP_EVERY": "200ms", "MSGSVC_SWEEP_GRACE": "1s", "MSGSVC_WEBHOOK_RETRY_SCHEDULE": "1s",
	}}
	in.env["MSGSVC_ADDR"] = in.addr
	for k, v := range env {
		in.env[k] = v
	}
	if p := in.start("seed", "--file", resttest.FixturePath()); p.wait(t, time.Minute) != 0 {
		t.Fatalf("seed failed:\n%s", p.logs.String())
	}
	return in
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// URL is the API's base URL.
func (in *installation) URL() string { return "http://" + in.addr }

// process is one running msgsvc command.
type process struct {
	cmd *exec.Cmd
	// metrics is the address of its /metrics and /debug/pprof/.
	metrics string
	logs    *syncBuffer
	done    chan struct{}
	code    int
}

// start runs a msgsvc command with the installation's environment (and a
// metrics address of its own), stderr and stdout captured; the process is
// killed when the test ends if it is still running.
func (in *installation) start(args ...string) *process {
	in.t.Helper()
	return in.startEnv(nil, args...)
}

// startEnv is start with extra variables over the installation's.
func (in *installation) startEnv(extra map[string]string, args ...string) *process {
	in.t.Helper()
	cmd := exec.Command(in.bin, args...)
	metrics := freeAddr(in.t)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "MSGSVC_METRICS_ADDR=" + metrics}
	for k, v := range in.env {
		if _, over := extra[k]; !over {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &process{cmd: cmd, metrics: metrics, logs: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		in.t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			p.code = exit.ExitCode()
		} else if err != nil {
			p.code = -1
		}
		close(p.done)
	}()
	in.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if in.t.Failed() {
			in.t.Logf("msgsvc %s output:\n%s", strings.Join(args, " "), p.logs.String())
		}
	})
	return p
}

// serve starts a command that listens on the API address and waits until
// /readyz answers 200.
func (in *installation) serve(args ...string) *process {
	in.t.Helper()
	return in.serveOn(in.addr, args...)
}

// serveOn is serve with the API on addr rather than the installation's
// address (a second server of the same installation).
func (in *installation) serveOn(addr string, args ...string) *process {
	in.t.Helper()
	p := in.startEnv(map[string]string{"MSGSVC_ADDR": addr}, args...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-p.done:
			in.t.Fatalf("msgsvc %v stopped (exit %d):\n%s", args, p.code, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("msgsvc %v not ready within 30s:\n%s", args, p.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wait waits for the process to exit and returns its exit code; past the
// bound the test fails.
func (p *process) wait(t *testing.T, bound time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(bound):
		t.Fatalf("msgsvc %v still running after %s:\n%s", p.cmd.Args[1:], bound, p.logs.String())
		return -1
	}
}

// terminate sends SIGTERM.
func (p *process) terminate(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// call is one API request with a key (or any Authorization value) and a
// JSON body; header adds name, value pairs.
func (in *installation) call(method, path, auth string, body any, header ...string) (int, map[string]any, error) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	if auth != "" {
		h.Set("Authorization", "Bearer "+auth)
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
		h.Set("Content-Type", "application/json")
	}
	req, err := http.NewRequest(method, in.URL()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, err := io.ReadAll(resp.Body)
	if err == nil && len(raw) > 0 {
		err = json.Unmarshal(raw, &out)
	}
	return resp.StatusCode, out, err
}

// must is call that fails the test unless the status is want; it returns
// the data object.
func (in *installation) must(want int, method, path, auth string, body any, header ...string) map[string]any {
	in.t.Helper()
	code, out, err := in.call(method, path, auth, body, header...)
	if err != nil || code != want {
		in.t.Fatalf("%s %s: %d %v (%v), want %d", method, path, code, out, err, want)
	}
	data, _ := out["data"].(map[string]any)
	return data
}

// inbound records a sandbox WhatsApp message from a customer and returns
// its conversation's id.
func (in *installation) inbound(key, from, text string) string {
	in.t.Helper()
	res := in.must(201, "POST", "/v1/test/inbound", key, map[string]any{
		"channel": "whatsapp", "from": from, "name": "Dana", "text": text})
	conv, _ := res["conversation"].(map[string]any)
	id, _ := conv["id"].(string)
	if id == "" {
		in.t.Fatalf("inbound answered %v", res)
	}
	return id
}

// fixtureKey is the secret of a fixture key by id ("key_test_all", …).
func fixtureKey(t *testing.T, id string) string {
	t.Helper()
	for _, k := range fixtureStrings(t, func(path []string, _ string) bool {
		return len(path) >= 2 && path[len(path)-1] == "secret" && path[len(path)-2] == id
	}) {
		return k
	}
	t.Fatalf("no fixture key %s", id)
	return ""
}

// fixtureStrings walks rest/testdata/fixture.json and returns the string
// values keep accepts; path is the keys and object ids leading to it.
func fixtureStrings(t *testing.T, keep func(path []string, value string) bool) []string {
	t.Helper()
	raw, err := os.ReadFile(resttest.FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch v := v.(type) {
		case map[string]any:
			if id, ok := v["id"].(string); ok {
				path = append(path, id)
			}
			for k, child := range v {
				walk(child, append(append([]string(nil), path...), k))
			}
		case []any:
			for _, child := range v {
				walk(child, path)
			}
		case string:
			if keep(path, v) {
				out = append(out, v)
			}
		}
	}
	walk(doc, nil)
	return out
}

// receiver is a webhook receiver as the README writes one, holding the
// secret the endpoint was created with; it records each event id.
type receiver struct {
	URL    string
	secret string

	mu         sync.Mutex
	events     map[string]int
	signatures []string
	// refuse is how many of the next events to answer 503 (each attempt
	// refused counts one).
	refuse int
}

// refuseNext makes the receiver answer 503 to the next n events' attempts.
func (rc *receiver) refuseNext(n int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.refuse = n
}

func newReceiver(t *testing.T, secret string) *receiver {
	rc := &receiver{secret: secret, events: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sig := r.Header.Get("Service-Signature")
		event, err := webhooksig.ParseRequest(r, rc.secret)
		if err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.signatures = append(rc.signatures, sig)
		rc.mu.Unlock()
		if event.Type == "endpoint.verification" {
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": event.Challenge()})
			return
		}
		rc.mu.Lock()
		refused := rc.refuse > 0
		if refused {
			rc.refuse--
		} else {
			rc.events[event.ID]++
		}
		rc.mu.Unlock()
		if refused {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

// received returns how many times each event arrived.
func (rc *receiver) received() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.events))
	for k, v := range rc.events {
		out[k] = v
	}
	return out
}

// eventually polls cond for up to bound.
func eventually(t *testing.T, bound time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %s", bound, what, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newWebhookSecret is a caller-chosen signing secret.
func newWebhookSecret(n int) string {
	return fmt.Sprintf("whsec_process%02dsecret%040x", n, time.Now().UnixNano())
}
