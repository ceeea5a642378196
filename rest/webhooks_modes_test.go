package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/jobs/jobstest"
)

// An endpoint belongs to the mode of the key that made it: the other
// mode's keys neither see nor change it (404, as if absent), and a test
// endpoint receives sandbox events only.
func TestEndpointsBelongToTheirKeysMode(t *testing.T) {
	t.Parallel()
	w := jobstest.New(t, nil)
	w.StartWorker()
	rc := jobstest.NewReceiver(t, nil)
	test := w.CreateEndpoint(rc.URL, nil)
	live := w.Want(w.Do("POST", "/v1/webhook-endpoints", "live_all", map[string]any{"url": rc.URL}), 201, "").Data()
	liveID := live["id"].(string)

	for key, want := range map[string]string{"test_all": test.ID, "live_all": liveID} {
		items := w.Want(w.Do("GET", "/v1/webhook-endpoints", key, nil), 200, "").Items()
		if len(items) != 1 || items[0].(map[string]any)["id"] != want {
			t.Errorf("%s lists %v, want only %s", key, items, want)
		}
	}
	for key, other := range map[string]string{"live_all": test.ID, "test_all": liveID} {
		path := "/v1/webhook-endpoints/" + other
		w.Want(w.Do("PATCH", path, key, map[string]any{"url": rc.URL + "/elsewhere"}), 404, "endpoint_not_found")
		w.Want(w.Do("POST", path+"/roll-secret", key, map[string]any{"grace_hours": 0}), 404, "endpoint_not_found")
		w.Want(w.Do("POST", path+"/verify", key, nil), 404, "endpoint_not_found")
		w.Want(w.Do("DELETE", path, key, nil), 404, "endpoint_not_found")
	}

	// A live event (a live conversation changed by a live key) goes to the
	// live endpoint only.
	w.Want(w.Do("PATCH", "/v1/conversations/conv_live", "live_all", map[string]any{"tags": []string{"vip"}}), 200, "")
	w.FannedOut()
	if n := len(w.Deliveries(liveID, "live_all")); n != 1 {
		t.Errorf("the live endpoint has %d live deliveries, want 1", n)
	}
	if ds := w.Deliveries(test.ID, "live_all"); len(ds) != 0 {
		t.Errorf("the test endpoint got live deliveries: %v", ds)
	}

	// Made with a test key, an endpoint takes sandbox events unless told
	// otherwise: it can take nothing else.
	plain := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": rc.URL}), 201, "").Data()
	if plain["test_events"] != true {
		t.Errorf("a test key's endpoint defaults to test_events %v, want true", plain["test_events"])
	}
	if live["test_events"] != false {
		t.Errorf("a live key's endpoint defaults to test_events %v, want false", live["test_events"])
	}
}
