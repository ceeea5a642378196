package rest_test

import (
	"encoding/json"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A key limited to some websites may not use contacts, which belong to the
// whole workspace: it reads no contact event (GET /v1/events/{id}, the
// stream, the deliveries list) and cannot address a send by contact_id. A
// key limited to some channels may use contacts, so it keeps them.
func TestWebsiteLimitedKeySeesNoContactDetails(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, nil)
	_, all := openStream(t, w.API, "test_all", "", "?events=contact.created,message.received")
	_, limited := openStream(t, w.API, "web_main_only", "", "?events=contact.created,message.received")

	w.Inbound("website", "visitor-contacts-1", "hello")

	var env map[string]any
	first := nextEvent(t, all)
	_ = json.Unmarshal(first.Data, &env)
	if first.Type != "contact.created" {
		t.Fatalf("the unrestricted stream began with %s, want contact.created", first.Type)
	}
	contactEvent := env["id"].(string)
	if got := nextEvent(t, limited); got.Type != "message.received" {
		t.Errorf("the website-limited stream sent %s (%s), want message.received first", got.Type, got.Data)
	}

	w.Want(w.Do("GET", "/v1/events/"+contactEvent, "web_main_only", nil), 404, "event_not_found")
	w.Want(w.Do("GET", "/v1/events/"+contactEvent, "wa_only", nil), 200, "")
	w.Want(w.Do("GET", "/v1/events/"+contactEvent, "test_all", nil), 200, "")

	w.FannedOut()
	seen := func(key string) bool {
		for _, d := range w.Deliveries(ep.ID, key) {
			if d["event_id"] == contactEvent {
				return true
			}
		}
		return false
	}
	if !seen("test_all") {
		t.Fatalf("no delivery of %s to an endpoint of every website", contactEvent)
	}
	if seen("web_main_only") {
		t.Errorf("the website-limited key lists the delivery of contact event %s", contactEvent)
	}

	mail := map[string]any{"channel": "email", "contact_id": "ct_old", "from": "support@verified.test", "subject": "Hi", "text": "hello"}
	w.Want(w.Do("POST", "/v1/messages", "web_main_only", mail), 403, "contacts_need_all_websites")
	w.Want(w.Do("POST", "/v1/messages", "test_all", mail), 201, "")
}
