package rest_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestSandboxSweepCompletesLostDeliveries: with no task ever queued (as if
// Redis lost it), the sweep makes a sandbox message delivered once it is
// overdue, and not before.
func TestSandboxSweepCompletesLostDeliveries(t *testing.T) {
	t.Parallel()
	api := resttest.New(t) // no job queue: the delivered step is never scheduled
	sent := api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "hello"}), 201, "").Data()
	failing := api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "simulate:failed"}), 201, "").Data()
	status := func(id string) string {
		return api.Want(api.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "").Data()["status"].(string)
	}
	delay := 2 * time.Second
	api.Clock.Advance(delay + 9*time.Second) // within the sweep's grace
	if err := api.Resolver.SweepSandboxDeliveries(t.Context(), delay); err != nil {
		t.Fatal(err)
	}
	if got := status(sent["id"].(string)); got != "sent" {
		t.Fatalf("swept before its grace ran out: %s", got)
	}
	api.Clock.Advance(2 * time.Second)
	for i := 0; i < 2; i++ { // a second sweep changes nothing
		if err := api.Resolver.SweepSandboxDeliveries(t.Context(), delay); err != nil {
			t.Fatal(err)
		}
	}
	if got := status(sent["id"].(string)); got != "delivered" {
		t.Errorf("after the sweep: %s", got)
	}
	if got := status(failing["id"].(string)); got != "failed" {
		t.Errorf("simulate:failed after the sweep: %s", got)
	}
	statuses := 0
	for _, e := range api.Events("ws_main") {
		if e.Type == "message.status" {
			statuses++
		}
	}
	if statuses != 2 {
		t.Errorf("%d message.status events, want 2", statuses)
	}
}

func TestIdempotencyKeysArePurgedAfterADay(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": "purge@x.test"}, "Idempotency-Key", "k-1"), 201, "")
	count := func() int {
		var n int
		if err := api.Store.DB.Get(&n, `SELECT count(*) FROM idempotency_keys`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	api.Clock.Advance(24*time.Hour - time.Millisecond)
	if err := api.Resolver.PurgeIdempotencyKeys(t.Context()); err != nil {
		t.Fatal(err)
	}
	if count() != 1 {
		t.Fatal("a key was purged within its 24 hours")
	}
	// Still remembered: the same key and body replay.
	r := api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": "purge@x.test"}, "Idempotency-Key", "k-1"), 201, "")
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("no replay within 24 hours")
	}
	api.Clock.Advance(2 * time.Millisecond)
	if err := api.Resolver.PurgeIdempotencyKeys(t.Context()); err != nil {
		t.Fatal(err)
	}
	if count() != 0 {
		t.Error("a key older than 24 hours was kept")
	}
}
