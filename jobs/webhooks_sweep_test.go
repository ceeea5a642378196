package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestSweepHandsOverMoreThanABatchOnce: with more deliveries due than one
// sweep query takes, a sweep hands each over once and returns, even with no
// grace between sweeps (a sweep must not pick up what it just marked).
func TestSweepHandsOverMoreThanABatchOnce(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // SweepGrace 0; no worker, so nothing is attempted
	rc := resttest.NewReceiver(t, nil)
	w.CreateEndpoint(rc.URL, onlyMessages)
	ctx := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}, Version: auth.ServedVersion})
	text := "hi"
	const n = 501 // one more than a sweep batch
	for i := range n {
		in := model.SimulateInboundInput{Channel: "website", From: fmt.Sprintf("sweep-%d", i), Text: &text}
		if _, err := w.Resolver.Mutation().SimulateInbound(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Clock.Advance(time.Second)
	sweep, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := w.Resolver.Webhooks.SweepDeliveries(sweep); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	var swept int
	if err := w.Store.DB.Get(&swept, `SELECT count(*) FROM webhook_deliveries WHERE swept_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if swept != n {
		t.Errorf("%d deliveries swept, want %d", swept, n)
	}
}

// TestResweepSkipsTheGrace: a due delivery within the sweep's grace is left
// to its task by the periodic sweep, and handed a task at once by the
// resweep a worker runs when the queue's Redis server changed (its task
// may have been lost with the old primary).
func TestResweepSkipsTheGrace(t *testing.T) {
	t.Parallel()
	cfg := resttest.WebhookConfig()
	cfg.SweepGrace = 30 * time.Second
	w := resttest.NewWorld(t, cfg) // no worker, so nothing is attempted
	rc := resttest.NewReceiver(t, nil)
	w.CreateEndpoint(rc.URL, onlyMessages)
	ctx := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}, Version: auth.ServedVersion})
	text := "hi"
	in := model.SimulateInboundInput{Channel: "website", From: "resweep", Text: &text}
	if _, err := w.Resolver.Mutation().SimulateInbound(ctx, in); err != nil {
		t.Fatal(err)
	}
	svc := w.Resolver.Webhooks
	if err := svc.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Clock.Advance(time.Second)
	swept := func() int {
		var n int
		if err := w.Store.DB.Get(&n, `SELECT count(*) FROM webhook_deliveries WHERE swept_at IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := svc.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := swept(); n != 0 {
		t.Fatalf("the periodic sweep handed %d deliveries within the grace", n)
	}
	if err := svc.ResweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := swept(); n != 1 {
		t.Fatalf("the resweep handed %d deliveries, want 1", n)
	}
}
