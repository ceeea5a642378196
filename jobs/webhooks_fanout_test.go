package jobs_test

import (
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// eventTypes lists the event types of an endpoint's deliveries, oldest
// first, as a key of one mode sees them.
func eventTypes(w *resttest.World, endpointID, key string) []string {
	w.T.Helper()
	var out []string
	for _, d := range w.Deliveries(endpointID, key) {
		out = append(out, d["event_type"].(string))
	}
	slices.Reverse(out)
	return out
}

func TestFanOutMatchesChannelsEventsWebsitesAndMode(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // no worker: the test runs the fan-out
	rc := resttest.NewReceiver(t, nil)
	whatsapp := w.CreateEndpoint(rc.URL, map[string]any{"channels": []string{"whatsapp"}})
	created := w.CreateEndpoint(rc.URL, map[string]any{"events": []string{"conversation.created"}})
	second := w.CreateEndpoint(rc.URL, map[string]any{"website_ids": []string{"web_second"}})
	liveOnly := w.CreateEndpoint(rc.URL, map[string]any{"testEvents": false})
	all := w.CreateEndpoint(rc.URL, nil)

	// A website chat on web_main records contact.created (no channel, no
	// website), conversation.created and message.received.
	w.Inbound("website", "visitor-filters", "hello")
	// A live contact: contact.created with livemode true.
	w.Want(w.Do("POST", "/v1/contacts", "live_all", map[string]any{"name": "Live Lee", "email": "lee@example.com"}), 201, "")
	// An endpoint verified after the events gets none of them.
	w.Clock.Advance(time.Second)
	late := w.CreateEndpoint(rc.URL, nil)
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		endpoint string
		sandbox  []string
		live     []string
	}{
		{"channels [whatsapp]", whatsapp.ID, []string{"contact.created"}, []string{"contact.created"}},
		{"events [conversation.created]", created.ID, []string{"conversation.created"}, nil},
		// Contacts belong to every website: no contact event for it.
		{"website_ids [web_second]", second.ID, nil, nil},
		{"test events off", liveOnly.ID, nil, []string{"contact.created"}},
		{"everything", all.ID, []string{"contact.created", "conversation.created", "message.received"}, []string{"contact.created"}},
		{"verified after the events", late.ID, nil, nil},
	}
	for _, c := range cases {
		if got := eventTypes(w, c.endpoint, "test_all"); !slices.Equal(got, c.sandbox) {
			t.Errorf("%s: sandbox deliveries %v, want %v", c.name, got, c.sandbox)
		}
		if got := eventTypes(w, c.endpoint, "live_all"); !slices.Equal(got, c.live) {
			t.Errorf("%s: live deliveries %v, want %v", c.name, got, c.live)
		}
	}

	// An unverified endpoint gets nothing; the verified one next to it does.
	unverified := w.CreateEndpoint(rc.NoVerifyURL(), nil)
	if unverified.Data["status"] != "unverified" {
		t.Fatalf("created %v", unverified.Data)
	}
	w.Inbound("website", "visitor-filters", "again")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := eventTypes(w, unverified.ID, "test_all"); len(got) != 0 {
		t.Errorf("the unverified endpoint got %v", got)
	}
	if got := eventTypes(w, late.ID, "test_all"); !slices.Equal(got, []string{"message.received"}) {
		t.Errorf("the verified endpoint got %v", got)
	}
}
