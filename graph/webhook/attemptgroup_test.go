package webhook

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// heldClaims is a store whose claims wait for the test: each claim reports
// its delivery on entered, then takes a token from gate and finds nothing to
// attempt, or fails for the deliveries in fail. It counts the claims in
// flight.
type heldClaims struct {
	Store
	entered chan string
	gate    chan struct{}
	fail    string

	mu             sync.Mutex
	inFlight, most int
	claimed        []string
}

func newHeldClaims() *heldClaims {
	return &heldClaims{entered: make(chan string), gate: make(chan struct{})}
}

// fill waits until MaxAttemptsInFlight claims are held, none finished, and
// checks that they take every place of r's process.
func (c *heldClaims) fill(t *testing.T, r *Service) {
	t.Helper()
	for range MaxAttemptsInFlight {
		<-c.entered
	}
	if places := r.config().attemptPlaces(); len(places) != cap(places) {
		t.Fatalf("%d of %d places taken with %d claims held", len(places), cap(places), MaxAttemptsInFlight)
	}
}

func (c *heldClaims) ClaimWebhookDelivery(_ context.Context, id string, _, _ time.Time, _ string) (*repo.ClaimedWebhookDelivery, error) {
	c.mu.Lock()
	c.inFlight++
	c.most = max(c.most, c.inFlight)
	c.claimed = append(c.claimed, id)
	c.mu.Unlock()
	c.entered <- id
	<-c.gate
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
	if id == c.fail {
		return nil, errors.New("the database failed")
	}
	return nil, repo.ErrNotFound
}

// handedBack is a queue that records the deliveries handed to it.
type handedBack chan string

func (h handedBack) DeliveryDue(_ context.Context, id string, _ time.Duration) error {
	h <- id
	return nil
}

func (h handedBack) DeliveriesDue(ctx context.Context, ids []string) error {
	for _, id := range ids {
		h <- id
	}
	return nil
}

func deliveryIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "whd_" + string(rune('A'+i))
	}
	return ids
}

// TestAttemptDeliveriesAllAtOnceWithinTheBound: the deliveries of a task are
// attempted at the same time, MaxAttemptsInFlight at most in a process;
// the others wait for a place and then go too. One delivery's database
// error stops none of the others and comes back naming it.
func TestAttemptDeliveriesAllAtOnceWithinTheBound(t *testing.T) {
	store := newHeldClaims()
	ids := deliveryIDs(MaxAttemptsInFlight + 5)
	store.fail = ids[3]
	// No retries of a refused claim (dbRetry): its error is the last word.
	r := &Service{Store: store, Config: &Config{DBRetryWaits: []time.Duration{}}}
	done := make(chan error, 1)
	go func() { done <- r.AttemptDeliveries(t.Context(), ids) }()
	store.fill(t, r)
	for range len(ids) - MaxAttemptsInFlight {
		store.gate <- struct{}{} // one finishes, and a waiting one takes its place
		<-store.entered
	}
	for range MaxAttemptsInFlight {
		store.gate <- struct{}{}
	}
	err := <-done
	if store.most != MaxAttemptsInFlight {
		t.Errorf("%d claims in flight at most, want %d", store.most, MaxAttemptsInFlight)
	}
	if got := slices.Sorted(slices.Values(store.claimed)); !slices.Equal(got, ids) {
		t.Errorf("claimed %v, want every one of %v once", got, ids)
	}
	if err == nil || !strings.Contains(err.Error(), "attempt "+ids[3]+": claim: the database failed") || strings.Count(err.Error(), "whd_") != 1 {
		t.Errorf("error %v, want %s's alone", err, ids[3])
	}
}

// TestAttemptDeliveriesHandsBackWhatWaitsAtShutdown: when the worker stops
// while a task's deliveries wait for a place, those are handed back to the
// queue unattempted rather than left to the sweep; the ones in flight
// finish.
func TestAttemptDeliveriesHandsBackWhatWaitsAtShutdown(t *testing.T) {
	store := newHeldClaims()
	queue := make(handedBack, 10)
	ids := deliveryIDs(MaxAttemptsInFlight + 3)
	r := &Service{Store: store, Jobs: queue, Config: &Config{}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.AttemptDeliveries(ctx, ids) }()
	store.fill(t, r)
	cancel()
	var back []string
	for range 3 {
		back = append(back, <-queue)
	}
	for range MaxAttemptsInFlight {
		store.gate <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Errorf("AttemptDeliveries: %v", err)
	}
	if got := slices.Sorted(slices.Values(slices.Concat(store.claimed, back))); !slices.Equal(got, ids) || len(back) != 3 {
		t.Errorf("claimed %v and handed back %v, want each of %v once, 3 handed back", store.claimed, back, ids)
	}
}

// TestFanOutAttemptsHereWhileItHasPlaces: in a worker (Config.Here), the
// deliveries a fan-out finds due are attempted in the process at once,
// each holding a place, not handed to the queue; those beyond the free
// places go to the queue. Without Here every one goes to the queue.
func TestFanOutAttemptsHereWhileItHasPlaces(t *testing.T) {
	store := newHeldClaims()
	queue := make(handedBack, 2*MaxAttemptsInFlight)
	ids := deliveryIDs(MaxAttemptsInFlight + 2)
	r := &Service{Store: store, Jobs: queue, Config: &Config{Here: t.Context()}}
	r.deliveriesDue(t.Context(), ids)
	store.fill(t, r) // the first MaxAttemptsInFlight are being attempted here
	var queued []string
	for range 2 {
		queued = append(queued, <-queue)
	}
	if !slices.Equal(queued, ids[MaxAttemptsInFlight:]) {
		t.Errorf("queued %v, want the 2 beyond the places, %v", queued, ids[MaxAttemptsInFlight:])
	}
	for range MaxAttemptsInFlight {
		store.gate <- struct{}{}
	}
	places := r.config().attemptPlaces()
	for deadline := time.Now().Add(10 * time.Second); len(places) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d places still held after the attempts ended", len(places))
		}
	}
	if got := slices.Sorted(slices.Values(store.claimed)); !slices.Equal(got, ids[:MaxAttemptsInFlight]) {
		t.Errorf("claimed here %v, want %v", got, ids[:MaxAttemptsInFlight])
	}

	elsewhere := &Service{Store: store, Jobs: queue, Config: &Config{}}
	elsewhere.deliveriesDue(t.Context(), ids[:3])
	for _, want := range ids[:3] {
		if got := <-queue; got != want {
			t.Errorf("without Here, queued %s, want %s", got, want)
		}
	}
}
