package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// txCounter is a webhook store that counts the transactions it begins, so a
// test can add their BEGIN and COMMIT to the statements repo.Store counts.
type txCounter struct {
	webhook.Store
	n atomic.Int64
}

func (s *txCounter) InTx(ctx context.Context, fn func(repo.Queries) error) error {
	s.n.Add(1)
	return s.Store.InTx(ctx, fn)
}

// oneDelivery records an inbound message from a new visitor and fans it out
// to a new endpoint at a receiver that answers 200, with no worker, so the
// test makes the attempt itself; it returns the delivery's id.
func oneDelivery(t *testing.T, from string) (*resttest.World, *resttest.Receiver, resttest.Endpoint, string) {
	t.Helper()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", from, "hi")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	return w, rc, ep, newest(w, ep.ID)
}

// TestSuccessfulAttemptIsThreeRoundTrips: one successful attempt of an
// ordered delivery with no successor costs three round trips to Postgres:
// the claim that also reads the endpoint and the event, the record that also
// ends the endpoint's run of failures (no BEGIN and COMMIT around it), and
// the look for the next delivery of the conversation after it. It cost
// eight: a claim, two reads, and a transaction of two updates, then the look.
func TestSuccessfulAttemptIsThreeRoundTrips(t *testing.T) {
	t.Parallel()
	w, rc, ep, id := oneDelivery(t, "visitor-round-trips")
	// A run of failures is on, so the success has it to end.
	if _, err := w.Store.DB.Exec(`UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1`,
		ep.ID, w.Clock.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}

	svc := *w.Resolver.Webhooks
	store := &txCounter{Store: svc.Store}
	svc.Store = store
	before := w.Store.Statements()
	if err := svc.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	statements, txs := w.Store.Statements()-before, store.n.Load()
	trips := statements + 2*txs
	t.Logf("a successful attempt: %d statements in %d transactions, %d round trips", statements, txs, trips)
	if trips > 3 {
		t.Errorf("a successful attempt took %d round trips (%d statements, %d transactions), want at most 3",
			trips, statements, txs)
	}

	d := w.Delivery(id)
	if d.Status != "succeeded" || d.Attempts != 1 || d.LeaseToken != nil || len(rc.Events()) != 1 {
		t.Errorf("after the attempt: %+v, %d requests", d, len(rc.Events()))
	}
	e, err := w.Store.WebhookEndpointAnyState(t.Context(), ep.ID)
	if err != nil || e.FailingSince != nil {
		t.Errorf("the success left failing_since %v (%v)", e.FailingSince, err)
	}
}

// TestDeliveryWithoutItsEventFailsAtOnce: a delivery whose event's row is
// gone (a purge takes the deliveries with it, so only a row removed around
// the foreign key leaves one) fails at its first attempt without counting
// one or sending anything, and without an error. It used to fail the task
// and go back to pending, to fail the same way at every retry and sweep.
func TestDeliveryWithoutItsEventFailsAtOnce(t *testing.T) {
	t.Parallel()
	w, rc, _, id := oneDelivery(t, "visitor-no-event")
	for _, q := range []string{
		`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`,
		`DELETE FROM events WHERE id = (SELECT event_id FROM webhook_deliveries WHERE id = '` + id + `')`,
	} {
		if _, err := w.Store.DB.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatalf("the attempt: %v", err)
	}
	d := w.Delivery(id)
	if d.Status != "failed" || d.Attempts != 0 || d.LeaseToken != nil || d.NextAttemptAt != nil ||
		d.LastError == nil || *d.LastError != "the event is gone; there is nothing to send" {
		t.Errorf("after the attempt: %+v", d)
	}
	if n := len(rc.Events()); n != 0 {
		t.Errorf("the receiver got %d requests, want none", n)
	}
}
