package jobs_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestReplaySendsTheSameEventAgain(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-replay", "hello")
	original := newest(w, ep.ID)
	w.WaitDelivery(original, "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })

	r := w.Want(w.Do("POST", "/v1/webhook-deliveries/"+original+"/replay", "webhooks", nil), 202, "").Data()
	if r["object"] != "webhook_delivery" || r["replay_of"] != original || r["event_id"] != w.Delivery(original).EventID ||
		r["status"] != "pending" || r["attempts"] != 0.0 || r["endpoint_id"] != ep.ID {
		t.Fatalf("replay answered %v", r)
	}
	got := rc.WaitEvents(t, 2)
	if got[0].ID() != got[1].ID() || string(got[0].Body) != string(got[1].Body) {
		t.Errorf("the replay sent %s, the original %s", got[1].Body, got[0].Body)
	}
	w.WaitDelivery(r["id"].(string), "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })

	// Another workspace, or the other mode, cannot see the delivery.
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+original+"/replay", "other_test", nil), 404, "delivery_not_found")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+original+"/replay", "live_all", nil), 404, "delivery_not_found")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/whd_missing/replay", "test_all", nil), 404, "delivery_not_found")

	// A switched-off endpoint takes no replay.
	w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+ep.ID, "test_all", map[string]any{"enabled": false}), 200, "")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+original+"/replay", "test_all", nil), 400, "endpoint_disabled")
	w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+ep.ID, "test_all", map[string]any{"enabled": true}), 200, "")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+original+"/replay", "test_all", nil), 202, "")
}

func TestRetentionExpiresAndPurgesEvents(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // retention 30 days; no worker needed
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	fanOut := func() {
		if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	w.Inbound("website", "visitor-old", "old")
	fanOut()
	old := newest(w, ep.ID)
	w.Clock.Advance(20 * 24 * time.Hour)
	w.Inbound("website", "visitor-new", "new")
	fanOut()
	recent := newest(w, ep.ID)
	oldEvent, recentEvent := w.Delivery(old).EventID, w.Delivery(recent).EventID

	w.Clock.Advance(10*24*time.Hour + time.Millisecond) // the old event is 30 days and 1 ms old
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+old+"/replay", "test_all", nil), 400, "event_expired")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+recent+"/replay", "test_all", nil), 202, "")
	// Past retention an event is gone at once, before the purge runs.
	w.Want(w.Do("GET", "/v1/events/"+oldEvent, "test_all", nil), 404, "event_not_found")

	if err := w.Resolver.Webhooks.PurgeExpiredEvents(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Want(w.Do("GET", "/v1/events/"+oldEvent, "test_all", nil), 404, "event_not_found")
	w.Want(w.Do("GET", "/v1/events/"+recentEvent, "test_all", nil), 200, "")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+old+"/replay", "test_all", nil), 404, "delivery_not_found")
	left := map[string]bool{}
	for _, d := range w.Deliveries(ep.ID, "test_all") {
		left[d["event_id"].(string)] = true
	}
	if left[oldEvent] || !left[recentEvent] || len(left) != 1 {
		t.Errorf("deliveries left for events %v", left)
	}
}

func TestDeliveriesListNewestFirstWithFiltersAndCursors(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	ok, failing := resttest.NewReceiver(t, nil), resttest.NewReceiver(t, always(500))
	a := w.CreateEndpoint(ok.URL, onlyMessages)
	b := w.CreateEndpoint(failing.URL, onlyMessages)
	for _, from := range []string{"v1", "v2", "v3"} {
		w.Inbound("website", from, "hello")
		w.Clock.Advance(time.Second)
	}
	w.FannedOut()
	ok.WaitEvents(t, 3)
	failing.WaitEvents(t, 3)

	var ids []string
	next := ""
	for page := 0; page < 10; page++ {
		path := "/v1/webhook-deliveries?limit=2&endpoint_id=" + a.ID
		if next != "" {
			path += "&starting_after=" + next
		}
		r := w.Want(w.Do("GET", path, "test_all", nil), 200, "")
		for _, item := range r.Items() {
			ids = append(ids, item.(map[string]any)["id"].(string))
		}
		if r.Data()["has_more"] != true {
			break
		}
		next = r.Data()["next_cursor"].(string)
	}
	if len(ids) != 3 {
		t.Fatalf("paged through %v", ids)
	}
	for i := 1; i < len(ids); i++ {
		prev, cur := w.Delivery(ids[i-1]), w.Delivery(ids[i])
		if prev.CreatedAt.Before(cur.CreatedAt) || (prev.CreatedAt.Equal(cur.CreatedAt) && prev.ID < cur.ID) {
			t.Errorf("not newest first: %v", ids)
		}
	}
	count := func(query string) int {
		return len(w.Want(w.Do("GET", "/v1/webhook-deliveries?"+query, "test_all", nil), 200, "").Items())
	}
	w.WaitDelivery(ids[0], "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	resttest.Eventually(t, "all deliveries to settle", func() bool {
		return count("status=succeeded") == 3 && count("status=retrying") == 3
	})
	cases := map[string]int{
		"":                    6,
		"endpoint_id=" + b.ID: 3,
		"endpoint_id=" + b.ID + "&status=succeeded": 0,
		"status=failed":          0,
		"endpoint_id=we_missing": 0,
	}
	for query, want := range cases {
		if got := count(query); got != want {
			t.Errorf("?%s: %d deliveries, want %d", query, got, want)
		}
	}
	w.Want(w.Do("GET", "/v1/webhook-deliveries?status=lost", "test_all", nil), 400, "invalid_request")
	w.Want(w.Do("GET", "/v1/webhook-deliveries?limit=0", "test_all", nil), 400, "invalid_limit")
	w.Want(w.Do("GET", "/v1/webhook-deliveries?starting_after=nonsense", "test_all", nil), 400, "invalid_cursor")
	w.Want(w.Do("GET", "/v1/webhook-deliveries?colour=red", "test_all", nil), 400, "invalid_request")
	// Live keys and other workspaces see none of these sandbox deliveries.
	for _, key := range []string{"live_all", "other_test"} {
		if n := len(w.Want(w.Do("GET", "/v1/webhook-deliveries", key, nil), 200, "").Items()); n != 0 {
			t.Errorf("%s sees %d deliveries", key, n)
		}
	}
}
