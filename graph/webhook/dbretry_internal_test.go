package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/repo"
)

// refusingStore is one conversation's two deliveries, d1 then d2, in a
// store whose claims and success records the database refuses for a
// while: the first claimsDown claims and recordsDown records fail, as a
// restarting Postgres refuses connections, before the store answers again.
// It keeps what a real store keeps: a delivery leased to one token, a
// record only under its lease, and d2 handed over by d1's success.
type refusingStore struct {
	Store
	claimsDown, recordsDown int

	mu              sync.Mutex
	claims, records int
	lease           map[string]string // delivery -> token
	succeeded       map[string]bool
	released        []string
}

var errRefused = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func (s *refusingStore) ClaimWebhookDelivery(_ context.Context, id string, now, _ time.Time, token string) (*repo.ClaimedWebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claims++; s.claims <= s.claimsDown {
		return nil, errRefused
	}
	if s.succeeded[id] || (s.lease[id] != "" && s.lease[id] != token) || (id == "whd_2" && !s.succeeded["whd_1"]) {
		return nil, repo.ErrNotFound
	}
	s.lease[id] = token
	conv := "conv_1"
	at := now.Add(-time.Second)
	return &repo.ClaimedWebhookDelivery{
		WebhookDelivery: repo.WebhookDelivery{ID: id, EndpointID: "we_1", ConversationID: &conv,
			LeaseToken: &token, FirstAttemptAt: &now, Status: "pending"},
		Endpoint:      repo.WebhookEndpoint{ID: "we_1", URL: endpointURL, Enabled: true, VerifiedAt: &at, Secret: sealedSecret},
		EventEnvelope: repo.JSONB(`{"id":"evt_` + id[4:] + `","type":"message.received"}`), EventCreatedAt: &at,
	}, nil
}

func (s *refusingStore) RecordLoggedWebhookSuccess(_ context.Context, id, token string, _ *repo.WebhookAttemptLog) (bool, *repo.DueWebhookDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.records++; s.records <= s.recordsDown {
		return false, nil, errRefused
	}
	if s.lease[id] != token || s.succeeded[id] {
		return false, nil, nil
	}
	s.succeeded[id] = true
	if id == "whd_1" {
		return true, &repo.DueWebhookDelivery{ID: "whd_2", NextAttemptAt: time.Time{}}, nil
	}
	return true, nil, nil
}

func (s *refusingStore) ReleaseWebhookDelivery(_ context.Context, id, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = append(s.released, id)
	return nil
}

var endpointURL string
var sealedSecret []byte

// retryWorld is a service over a refusingStore, a receiver that records the
// events it gets, a queue that records what is handed to it, and a clock
// that moves only when the service waits between retries.
type retryWorld struct {
	svc      *Service
	store    *refusingStore
	queue    handedBack
	mu       sync.Mutex
	received []string
	now      time.Time
	waited   time.Duration
}

func newRetryWorld(t *testing.T, claimsDown, recordsDown int) *retryWorld {
	w := &retryWorld{queue: make(handedBack, 10), now: time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var ev struct{ ID string }
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			t.Errorf("the endpoint got a body that is not an event: %v", err)
		}
		w.mu.Lock()
		w.received = append(w.received, ev.ID)
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	endpointURL = srv.URL
	w.svc = &Service{Secrets: signing.Secrets{"retry-secret-0123456789"}, Jobs: w.queue}
	var err error
	if sealedSecret, err = w.svc.sealSecret("we_1", "whsec_retry"); err != nil {
		t.Fatal(err)
	}
	w.store = &refusingStore{claimsDown: claimsDown, recordsDown: recordsDown,
		lease: map[string]string{}, succeeded: map[string]bool{}}
	w.svc.Store = w.store
	w.svc.Clock = func() time.Time {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.now
	}
	w.svc.Config = &Config{AllowInsecure: true, Sleep: func(_ context.Context, d time.Duration) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.now, w.waited = w.now.Add(d), w.waited+d
		return nil
	}}
	return w
}

// TestRefusedClaimAndRecordAreRetriedInProcess: a claim and a success
// record the database refuses for a moment are retried in the process
// with backoff. Each event reaches the endpoint once, in the
// conversation's order, and the conversation's next delivery follows in
// the same task: nothing is handed to the queue or left to the sweep,
// and the lag the refusals add is the waits between the retries (on the
// injected clock), far below the sweep's grace.
func TestRefusedClaimAndRecordAreRetriedInProcess(t *testing.T) {
	w := newRetryWorld(t, 2, 3)
	if err := w.svc.AttemptDelivery(t.Context(), "whd_1"); err != nil {
		t.Fatalf("AttemptDelivery: %v", err)
	}
	want := []string{"evt_1", "evt_2"}
	if len(w.received) != 2 || w.received[0] != want[0] || w.received[1] != want[1] {
		t.Fatalf("the endpoint received %q; want each event once, in order: %q", w.received, want)
	}
	if !w.store.succeeded["whd_1"] || !w.store.succeeded["whd_2"] {
		t.Fatalf("recorded: %v; want both deliveries", w.store.succeeded)
	}
	// Claim 1 and 2 refused (50 + 100 ms), record 1, 2 and 3 refused (50 +
	// 100 + 200 ms).
	if want := 500 * time.Millisecond; w.waited != want {
		t.Errorf("waited %v between retries; want %v", w.waited, want)
	}
	if len(w.queue) != 0 || len(w.store.released) != 0 {
		t.Errorf("handed to the queue %d times, released %v; want neither", len(w.queue), w.store.released)
	}
}

// TestRefusalPastTheRetriesGoesToTheSweep: a database that stays down past
// the retries fails the attempt as before, after every wait of the
// schedule and no more, and nothing was sent.
func TestRefusalPastTheRetriesGoesToTheSweep(t *testing.T) {
	w := newRetryWorld(t, 100, 0)
	if err := w.svc.AttemptDelivery(t.Context(), "whd_1"); !errors.Is(err, errRefused) {
		t.Fatalf("AttemptDelivery: %v; want the refusal", err)
	}
	var all time.Duration
	for _, d := range DefaultDBRetryWaits {
		all += d
	}
	if w.waited != all || w.store.claims != len(DefaultDBRetryWaits)+1 {
		t.Errorf("waited %v over %d claims; want %v over %d", w.waited, w.store.claims, all, len(DefaultDBRetryWaits)+1)
	}
	if len(w.received) != 0 {
		t.Errorf("the endpoint received %q; want nothing", w.received)
	}
}
