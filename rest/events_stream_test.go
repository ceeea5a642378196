package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/ops/sse"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// openStream connects to GET /v1/events/stream; the stream closes with the
// test.
func openStream(t *testing.T, api *resttest.API, key, lastID, query string) (*http.Response, <-chan sse.Event) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", api.HTTP.URL+"/v1/events/stream"+query, nil)
	req.Header.Set("Authorization", "Bearer "+api.Key(key))
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	events := make(chan sse.Event, 100)
	if resp.StatusCode == 200 {
		go func() {
			defer close(events)
			r := sse.NewReader(resp.Body)
			for {
				ev, err := r.Next()
				if err != nil {
					return
				}
				events <- ev
			}
		}()
	}
	return resp, events
}

// next waits for the next event of a stream.
func nextEvent(t *testing.T, events <-chan sse.Event) sse.Event {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return sse.Event{}
}

func TestEventStreamDeliversAndResumes(t *testing.T) {
	api := resttest.New(t)
	resp, events := openStream(t, api, "webhooks", "", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	_, liveEvents := openStream(t, api, "live_all", "", "")
	_, received := openStream(t, api, "webhooks", "", "?events=message.received")
	api.Inbound("whatsapp", "+15550100077", "hello stream")
	recorded := api.Events("ws_main")
	var want []string
	for _, e := range recorded {
		if e.Envelope["livemode"] == false {
			want = append(want, e.Envelope["id"].(string))
		}
	}
	var got []sse.Event
	for range want[len(want)-3:] { // contact.created, conversation.created, message.received
		got = append(got, nextEvent(t, events))
	}
	for i, ev := range got {
		var env map[string]any
		if err := json.Unmarshal(ev.Data, &env); err != nil {
			t.Fatalf("data %q: %v", ev.Data, err)
		}
		if ev.ID != want[len(want)-3+i] || env["id"] != ev.ID || env["type"] != ev.Type || env["livemode"] != false {
			t.Fatalf("event %d: %s %s %s, want id %s", i, ev.ID, ev.Type, ev.Data, want[len(want)-3+i])
		}
	}
	if ev := nextEvent(t, received); ev.Type != "message.received" || ev.ID != got[2].ID {
		t.Fatalf("filtered stream got %s %s", ev.Type, ev.ID)
	}
	// Resume after the first: the two that followed, again.
	_, resumed := openStream(t, api, "webhooks", got[0].ID, "")
	for _, want := range got[1:] {
		if ev := nextEvent(t, resumed); ev.ID != want.ID || string(ev.Data) != string(want.Data) {
			t.Fatalf("resumed %s, want %s", ev.ID, want.ID)
		}
	}
	// The live key's stream saw none of the test events.
	select {
	case ev := <-liveEvents:
		t.Fatalf("a live stream got a test event: %s %s", ev.Type, ev.ID)
	case <-time.After(500 * time.Millisecond):
	}
}

func TestEventStreamRefusals(t *testing.T) {
	api := resttest.New(t)
	api.Inbound("whatsapp", "+15550100078", "hello")
	testEvent := api.Events("ws_main")[len(api.Events("ws_main"))-1].Envelope["id"].(string)
	for name, c := range map[string]struct {
		key, last, query string
		status           int
		code             string
	}{
		"scope":           {"conv_read", "", "", 403, "insufficient_scope"},
		"unknown type":    {"webhooks", "", "?events=message.bogus", 400, "invalid_request"},
		"unknown param":   {"webhooks", "", "?since=1", 400, "invalid_request"},
		"unknown id":      {"webhooks", "evt_missing", "", 404, "event_not_found"},
		"other mode's id": {"live_all", testEvent, "", 404, "event_not_found"},
	} {
		resp, _ := openStream(t, api, c.key, c.last, c.query)
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != c.status || body.Error.Code != c.code {
			t.Errorf("%s: %d %q, want %d %q", name, resp.StatusCode, body.Error.Code, c.status, c.code)
		}
	}
}

func TestEventStreamKeyRestrictions(t *testing.T) {
	api := resttest.New(t)
	_, waOnly := openStream(t, api, "wa_only", "", "?events=message.received")
	api.Inbound("website", "visitor-1", "from the website")
	api.Inbound("whatsapp", "+15550100079", "from whatsapp")
	ev := nextEvent(t, waOnly)
	var env map[string]any
	_ = json.Unmarshal(ev.Data, &env)
	if env["channel"] != "whatsapp" {
		t.Fatalf("a WhatsApp-only key streamed %v", env["channel"])
	}
}

func TestEventStreamEndsOnDrain(t *testing.T) {
	api := resttest.New(t)
	_, events := openStream(t, api, "webhooks", "", "")
	api.Server.Drain()
	select {
	case _, ok := <-events:
		if ok {
			t.Fatal("an event instead of the end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived the drain")
	}
}
