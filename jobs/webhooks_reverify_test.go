package jobs_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// secretReceiver is a receiver as the README writes one: it answers the
// handshake only when the signature verifies with the secret it has
// installed (none at first), on the world's clock.
type secretReceiver struct {
	URL string

	mu         sync.Mutex
	secret     string
	handshakes int
}

func newSecretReceiver(t *testing.T, w *resttest.World) *secretReceiver {
	rc := &secretReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.handshakes++
		secret := rc.secret
		rc.mu.Unlock()
		if secret == "" || webhooksig.Verify(r.Header.Get("Service-Signature"), body, w.Clock.Now(), secret) != nil {
			http.Error(rw, "bad signature", http.StatusUnauthorized)
			return
		}
		var ev struct {
			Data struct {
				Challenge string `json:"challenge"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &ev)
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]string{"challenge": ev.Data.Challenge})
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

func (rc *secretReceiver) install(secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = secret
}

func (rc *secretReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.handshakes
}

// endpointStatus is an endpoint's status as GET /v1/webhook-endpoints
// lists it.
func endpointStatus(w *resttest.World, id string) string {
	w.T.Helper()
	for _, item := range w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items() {
		if e := item.(map[string]any); e["id"] == id {
			s, _ := e["status"].(string)
			return s
		}
	}
	w.T.Fatalf("endpoint %s is not listed", id)
	return ""
}

func TestUnverifiedEndpointIsVerifiedInTheBackgroundOnceTheSecretIsInstalled(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := newSecretReceiver(t, w)
	ep := w.CreateEndpoint(rc.URL, nil)
	if got := endpointStatus(w, ep.ID); got != "unverified" || rc.count() != 1 {
		t.Fatalf("after create: %s, %d handshakes", got, rc.count())
	}
	svc := w.Resolver.Webhooks

	// Not due yet: no handshake.
	w.Clock.Advance(webhook.ReverifyDelay(0) - time.Second)
	if err := svc.ReverifyEndpoints(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 {
		t.Fatalf("a handshake before it was due: %d", rc.count())
	}

	// The integrator installs the secret the create call returned; the
	// next background handshake verifies the endpoint.
	rc.install(ep.Secret)
	w.Clock.Advance(time.Second)
	if err := svc.ReverifyEndpoints(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := endpointStatus(w, ep.ID); got != "active" || rc.count() != 2 {
		t.Fatalf("after the background handshake: %s, %d handshakes", got, rc.count())
	}

	// Verified, it is not called again.
	w.Clock.Advance(time.Hour)
	if err := svc.ReverifyEndpoints(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 2 {
		t.Errorf("a verified endpoint was handshaken again: %d", rc.count())
	}
}

func TestBackgroundVerificationBacksOffAndStopsAfterADay(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := newSecretReceiver(t, w) // never gets its secret
	ep := w.CreateEndpoint(rc.URL, nil)
	deleted := w.CreateEndpoint(rc.URL, nil)
	w.Want(w.Do("DELETE", "/v1/webhook-endpoints/"+deleted.ID, "test_all", nil), 200, "")
	since := w.Clock.Now()
	svc := w.Resolver.Webhooks

	sweep := func() int {
		t.Helper()
		before := rc.count()
		if err := svc.ReverifyEndpoints(t.Context()); err != nil {
			t.Fatal(err)
		}
		return rc.count() - before
	}
	// Each handshake comes once its wait has passed, never a second
	// earlier, for a day after the URL was set.
	prev, attempts := since, 0
	for prev.Sub(since) < 24*time.Hour {
		next := prev.Add(webhook.ReverifyDelay(prev.Sub(since)))
		w.Clock.Set(next.Add(-time.Second))
		if n := sweep(); n != 0 {
			t.Fatalf("%d handshakes a second before the one due %s after the URL was set", n, next.Sub(since))
		}
		w.Clock.Set(next)
		if n := sweep(); n != 1 {
			t.Fatalf("%d handshakes when one was due %s after the URL was set", n, next.Sub(since))
		}
		prev, attempts = next, attempts+1
	}
	if attempts < 100 || attempts > 200 {
		t.Errorf("%d background handshakes in a day", attempts)
	}
	// Then none: neither at the longest wait nor a day later.
	for _, d := range []time.Duration{11 * time.Minute, 48 * time.Hour} {
		w.Clock.Set(prev.Add(d))
		if n := sweep(); n != 0 {
			t.Errorf("%d handshakes %s after the last one", n, d)
		}
	}
	if endpointStatus(w, ep.ID) != "unverified" {
		t.Errorf("verified without the secret")
	}

	// POST .../verify starts the window again.
	w.Want(w.Do("POST", "/v1/webhook-endpoints/"+ep.ID+"/verify", "test_all", nil), 200, "")
	w.Clock.Advance(webhook.ReverifyDelay(0))
	if n := sweep(); n != 1 {
		t.Errorf("after POST verify: %d background handshakes, want 1", n)
	}
}

func TestReverifyDelay(t *testing.T) {
	for _, tc := range []struct{ age, want time.Duration }{
		{0, 10 * time.Second},
		{20 * time.Second, 10 * time.Second},
		{time.Minute, 15 * time.Second},
		{time.Minute + 3*time.Second, 15 * time.Second},
		{20 * time.Minute, 5 * time.Minute},
		{time.Hour, 10 * time.Minute},
		{23 * time.Hour, 10 * time.Minute},
	} {
		if got := webhook.ReverifyDelay(tc.age); got != tc.want {
			t.Errorf("ReverifyDelay(%s) = %s, want %s", tc.age, got, tc.want)
		}
	}
}
