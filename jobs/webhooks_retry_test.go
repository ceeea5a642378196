package jobs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// newest returns the id of an endpoint's newest delivery once the fan-out
// has run.
func newest(w *resttest.World, endpointID string) string {
	w.T.Helper()
	w.FannedOut()
	ds := w.Deliveries(endpointID, "test_all")
	if len(ds) == 0 {
		w.T.Fatalf("endpoint %s has no delivery", endpointID)
	}
	return ds[0]["id"].(string)
}

func always(status int) func(int, resttest.Request) int {
	return func(int, resttest.Request) int { return status }
}

func TestRetriesFollowTheScheduleThenGiveUp(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // 1m, 5m, 30m, 2h, 6h, then 12h; give up after 72h
	w.StartWorker()
	rc := resttest.NewReceiver(t, always(500))
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	start := w.Clock.Now()
	w.Inbound("website", "visitor-retry", "hi")
	id := newest(w, ep.ID)

	d := w.WaitDelivery(id, "first attempt", func(d *repo.WebhookDelivery) bool { return d.Attempts == 1 })
	if d.Status != "retrying" || *d.LastResponseStatus != 500 || *d.LastError != "the endpoint answered HTTP 500" {
		t.Fatalf("after the first attempt: %+v", d)
	}
	// When each attempt is due, counted from the first; the next would be
	// at 80h36m, past the 72 hours.
	due := []time.Duration{time.Minute, 6 * time.Minute, 36 * time.Minute, 2*time.Hour + 36*time.Minute,
		8*time.Hour + 36*time.Minute, 20*time.Hour + 36*time.Minute, 32*time.Hour + 36*time.Minute,
		44*time.Hour + 36*time.Minute, 56*time.Hour + 36*time.Minute, 68*time.Hour + 36*time.Minute}
	for i, at := range due {
		if !d.NextAttemptAt.Equal(start.Add(at)) {
			t.Fatalf("after attempt %d next_attempt_at is +%s, want +%s", d.Attempts, d.NextAttemptAt.Sub(start), at)
		}
		// A millisecond early, neither a task nor the sweep attempts it.
		w.Clock.Set(start.Add(at - time.Millisecond))
		if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := w.Delivery(id); got.Attempts != i+1 || len(rc.Events()) != i+1 {
			t.Fatalf("attempt %d ran before it was due", i+2)
		}
		// When due, the sweep hands it to the worker.
		w.Clock.Set(start.Add(at))
		if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
			t.Fatal(err)
		}
		d = w.WaitDelivery(id, "next attempt", func(d *repo.WebhookDelivery) bool { return d.Attempts == i+2 })
	}
	if d.Status != "failed" || d.NextAttemptAt != nil || *d.LastResponseStatus != 500 {
		t.Fatalf("after giving up: %+v", d)
	}
	if n := len(rc.Events()); n != 11 {
		t.Errorf("the receiver got %d attempts, want 11", n)
	}
	// 68h36m of failures are not yet the 72 hours that switch it off.
	state := w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()[0].(map[string]any)
	if state["status"] != "active" {
		t.Errorf("endpoint %v", state)
	}
}

func TestGoneSwitchesTheEndpointOffAndEmailsTheOwner(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // no worker: the test makes each attempt itself
	rc := resttest.NewReceiver(t, always(410))
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-a", "one")
	w.Inbound("website", "visitor-b", "two")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := w.Deliveries(ep.ID, "test_all")
	first, second := ds[1]["id"].(string), ds[0]["id"].(string)
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), first); err != nil {
		t.Fatal(err)
	}

	d := w.Delivery(first)
	if d.Status != "failed" || d.Attempts != 1 || *d.LastResponseStatus != 410 || d.NextAttemptAt != nil {
		t.Errorf("the 410 delivery: %+v", d)
	}
	other := w.Delivery(second)
	if other.Status != "failed" || other.Attempts != 0 || !strings.Contains(*other.LastError, "410") {
		t.Errorf("the waiting delivery: %+v", other)
	}
	state := w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()[0].(map[string]any)
	if state["status"] != "disabled" || state["disabled_reason"] != "gone" {
		t.Errorf("endpoint %v", state)
	}
	emails, err := w.Store.OutboxEmails(t.Context(), "ws_main")
	if err != nil || len(emails) != 1 || emails[0].ToAddress != "owner@main.test" ||
		!strings.Contains(emails[0].Body, ep.ID) || !strings.Contains(emails[0].Body, "410") {
		t.Fatalf("outbox %+v %v", emails, err)
	}
	// Switched off, it gets nothing new, and it is not mailed about twice.
	w.Inbound("website", "visitor-c", "three")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Deliveries(ep.ID, "test_all")); n != 2 {
		t.Errorf("a switched-off endpoint got a new delivery (%d)", n)
	}
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	if emails, _ := w.Store.OutboxEmails(t.Context(), "ws_main"); len(emails) != 1 || len(rc.Events()) != 1 {
		t.Errorf("%d emails, %d requests after the switch-off", len(emails), len(rc.Events()))
	}
	// Switched on again, it is active.
	r := w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+ep.ID, "test_all", map[string]any{"enabled": true}), 200, "").Data()
	if r["status"] != "active" || r["disabled_reason"] != nil {
		t.Errorf("PATCH enabled: %v", r)
	}
}

func TestThreeDaysOfFailureSwitchTheEndpointOff(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	// Every event fails but the second, whose success ends the first run
	// of failures.
	rc := resttest.NewReceiver(t, func(n int, _ resttest.Request) int {
		if n == 2 {
			return 200
		}
		return 500
	})
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	start := w.Clock.Now()
	attemptAt := func(after time.Duration, from string) *repo.WebhookDelivery {
		w.Clock.Set(start.Add(after))
		w.Inbound("website", from, "hello")
		if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
			t.Fatal(err)
		}
		id := newest(w, ep.ID)
		if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		return w.Delivery(id)
	}
	status := func() string {
		return w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()[0].(map[string]any)["status"].(string)
	}
	first := attemptAt(0, "v1")
	attemptAt(time.Hour, "v2")    // succeeds: the failures start again
	attemptAt(2*time.Hour, "v3")  // fails: failing since +2h
	attemptAt(73*time.Hour, "v4") // 71h of failure
	if s := status(); s != "active" {
		t.Fatalf("after 71 hours of failure the endpoint is %s", s)
	}
	last := attemptAt(74*time.Hour, "v5") // 72h of failure
	state := w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()[0].(map[string]any)
	if state["status"] != "disabled" || state["disabled_reason"] != "failing" {
		t.Fatalf("after 72 hours of failure: %v", state)
	}
	if last.Status != "failed" || w.Delivery(first.ID).Status != "failed" {
		t.Errorf("deliveries of a switched-off endpoint stay open: %s, %s", last.Status, w.Delivery(first.ID).Status)
	}
	if emails, _ := w.Store.OutboxEmails(t.Context(), "ws_main"); len(emails) != 1 || !strings.Contains(emails[0].Body, "72h") {
		t.Errorf("outbox %+v", emails)
	}
}

func TestOrderWithinAConversationHoldsWhileTheFirstRetries(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, func(n int, _ resttest.Request) int {
		if n == 1 {
			return 503
		}
		return 200
	})
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-ordered", "first")
	first := newest(w, ep.ID)
	w.WaitDelivery(first, "to fail once", func(d *repo.WebhookDelivery) bool { return d.Status == "retrying" })

	w.Inbound("website", "visitor-ordered", "second")
	second := newest(w, ep.ID)
	// Another conversation does not wait.
	w.Inbound("website", "visitor-other", "other")
	if got := rc.WaitEvents(t, 2)[1]; got.Data()["text"] != "other" {
		t.Fatalf("second request carried %v, want the other conversation's message", got.Data()["text"])
	}
	// The second of the conversation waits: neither a task nor the sweep
	// attempts it while the first is retrying.
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := w.Delivery(second); d.Status != "pending" || d.Attempts != 0 || len(rc.Events()) != 2 {
		t.Fatalf("the second delivery did not wait: %+v", d)
	}

	// The retry succeeds, and the second follows it.
	w.Clock.Advance(time.Minute)
	if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := rc.WaitEvents(t, 4)
	if got[2].Data()["text"] != "first" || got[3].Data()["text"] != "second" {
		t.Errorf("requests 3 and 4 carried %v and %v", got[2].Data()["text"], got[3].Data()["text"])
	}
	w.WaitDelivery(second, "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" && d.Attempts == 1 })
}
