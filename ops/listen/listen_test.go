package listen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/ops/listen"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

func TestMain(m *testing.M) { repotest.Main(m) }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// receiver is the developer's local endpoint: it keeps each forward whose
// signature checks out with the printed secret.
type receiver struct {
	mu     sync.Mutex
	secret string
	ids    []string
	bad    int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.secret == "" || webhooksig.Verify(r.Header.Get("Service-Signature"), body, time.Now(), rc.secret) != nil {
		rc.bad++
		w.WriteHeader(400)
		return
	}
	var env struct{ ID string }
	_ = json.Unmarshal(body, &env)
	rc.ids = append(rc.ids, env.ID)
	w.WriteHeader(202)
}

func (rc *receiver) got() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.ids...)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestListenForwardsSignedAndReconnects(t *testing.T) {
	api := resttest.New(t)
	rc := &receiver{}
	local := httptest.NewServer(rc)
	defer local.Close()
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	// Cleanups run last-in first-out: listen stops before the API server
	// closes, even when the test fails half way.
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		done <- listen.Run(ctx, listen.Options{API: api.HTTP.URL, Key: api.Key("webhooks"), Forward: local.URL + "/hook",
			Events: []string{"message.received"}, Out: out, MinBackoff: 50 * time.Millisecond})
	}()
	secretRe := regexp.MustCompile(`session secret is (whsec_[0-9a-f]{64})`)
	waitFor(t, "the Ready line", func() bool { return secretRe.MatchString(out.String()) })
	rc.mu.Lock()
	rc.secret = secretRe.FindStringSubmatch(out.String())[1]
	rc.mu.Unlock()
	if want := listen.SessionSecret(api.Key("webhooks")); rc.secret != want {
		t.Errorf("session secret %s, want the key's %s", rc.secret, want)
	}

	var want []string
	received := func(from string) {
		data := api.Inbound("whatsapp", from, "hi listen")
		msg, _ := data["message"].(map[string]any)
		id, _ := msg["id"].(string)
		if id == "" {
			t.Fatalf("the inbound from %s was not recorded: %v", from, data)
		}
		want = append(want, id)
	}
	received("+15550100081")
	received("+15550100082")
	waitFor(t, "two forwards", func() bool { return len(rc.got()) == 2 })

	// Cut the stream: listen reconnects with Last-Event-ID, and what was
	// recorded meanwhile still arrives, once.
	api.HTTP.CloseClientConnections()
	// The test's own client must not reuse a connection the server just
	// closed (a POST on it is not retried).
	http.DefaultClient.CloseIdleConnections()
	received("+15550100083")
	waitFor(t, "the forward after the reconnect", func() bool { return len(rc.got()) >= 3 })
	time.Sleep(700 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	events := api.Events("ws_main")
	var wantEvents []string
	for _, e := range events {
		if e.Type == "message.received" && e.Envelope["livemode"] == false {
			data := e.Envelope["data"].(map[string]any)
			for _, m := range want {
				if data["id"] == m {
					wantEvents = append(wantEvents, e.Envelope["id"].(string))
				}
			}
		}
	}
	if got := rc.got(); strings.Join(got, ",") != strings.Join(wantEvents, ",") || rc.bad != 0 {
		t.Fatalf("forwarded %v (bad signatures %d), want %v\n%s", got, rc.bad, wantEvents, out.String())
	}
	for _, id := range wantEvents {
		if !regexp.MustCompile(`--> message\.received \[` + id + `\]  <-- \[202\] POST `).MatchString(out.String()) {
			t.Fatalf("no line for %s:\n%s", id, out.String())
		}
	}
	if !strings.Contains(out.String(), "reconnected") {
		t.Fatalf("no reconnect line:\n%s", out.String())
	}
}

func TestListenStopsOnARefusal(t *testing.T) {
	api := resttest.New(t)
	err := listen.Run(context.Background(), listen.Options{API: api.HTTP.URL, Key: api.Key("conv_read"),
		Forward: "http://127.0.0.1:1/hook", Out: io.Discard})
	var fatal *listen.FatalError
	if !errors.As(err, &fatal) || fatal.Status != 403 || !strings.Contains(fatal.Body, "insufficient_scope") {
		t.Fatalf("err %v", err)
	}
}

// Without --secret a session signs with a secret derived from its key: the
// same on every run, so a receiver set up once keeps verifying; another key
// gets another, and the key cannot be read back from it.
func TestSessionSecretIsStablePerKey(t *testing.T) {
	a, b := "svc_test_"+strings.Repeat("A", 32), "svc_test_"+strings.Repeat("B", 32)
	// Key a's secret, fixed: a derivation with a random or time-based part,
	// or any change to it, fails here.
	const wantA = "whsec_ea7356303acfbfb260c50adbaad51c9ba09253c19981bc3b6bc1ea7361cc6983"
	if got := listen.SessionSecret(a); got != wantA {
		t.Errorf("SessionSecret(a) = %q, want %q: a receiver set up with it stops verifying", got, wantA)
	}
	if listen.SessionSecret(a) == listen.SessionSecret(b) {
		t.Error("two keys share a secret")
	}
	if s := listen.SessionSecret(a); !regexp.MustCompile(`^whsec_[0-9a-f]{64}$`).MatchString(s) || strings.Contains(s, strings.Repeat("A", 8)) {
		t.Errorf("secret %q", s)
	}
}
