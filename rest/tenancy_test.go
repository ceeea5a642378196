package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestTenancy: an id outside what a key may see is a 404 of that resource,
// never a 403 and never the data (decisions 2).
func TestTenancy(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	sandboxEvent := api.Inbound("website", "visitor-t", "hi")
	_ = sandboxEvent
	var eventID string
	if err := api.Store.DB.Get(&eventID, `SELECT id FROM events WHERE workspace_id = 'ws_main' ORDER BY seq LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	type probe struct{ method, path, code string }
	probesFor := func(conv, contact, event string) []probe {
		return []probe{
			{"GET", "/v1/conversations/" + conv, "conversation_not_found"},
			{"PATCH", "/v1/conversations/" + conv, "conversation_not_found"},
			{"GET", "/v1/conversations/" + conv + "/messages", "conversation_not_found"},
			{"GET", "/v1/contacts/" + contact, "contact_not_found"},
			{"PATCH", "/v1/contacts/" + contact, "contact_not_found"},
			{"DELETE", "/v1/contacts/" + contact, "contact_not_found"},
			{"GET", "/v1/events/" + event, "event_not_found"},
		}
	}
	cases := []struct {
		name, key string
		probes    []probe
	}{
		{"another workspace's sandbox data", "other_test", probesFor("conv_wa_1h", "ct_recent", eventID)},
		{"sandbox data with a live key", "live_all", probesFor("conv_wa_1h", "ct_recent", eventID)},
		{"live data with a test key", "test_all", probesFor("conv_live", "ct_live", "evt_missing")},
		{"main workspace from the other one", "test_all", probesFor("conv_other", "ct_other", "evt_missing")},
	}
	for _, c := range cases {
		for _, p := range c.probes {
			var body any
			if p.method == "PATCH" {
				body = map[string]any{"tags": []string{"x"}}
				if p.code == "contact_not_found" {
					body = map[string]any{"name": "x"}
				}
			}
			r := api.Do(p.method, p.path, c.key, body)
			if r.Status != 404 || r.Code() != p.code {
				t.Errorf("%s: %s %s got %d %q, want 404 %s", c.name, p.method, p.path, r.Status, r.Code(), p.code)
			}
		}
	}
	// Nothing was changed by the refused writes.
	conv := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "test_all", nil), 200, "").Data()
	if len(conv["tags"].([]any)) != 0 {
		t.Errorf("tags changed through another key: %v", conv["tags"])
	}
	api.Want(api.Do("GET", "/v1/contacts/ct_recent", "test_all", nil), 200, "")

	// Key restrictions hide conversations of other channels and websites.
	api.Want(api.Do("GET", "/v1/conversations/conv_web_closed", "wa_only", nil), 404, "conversation_not_found")
	api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "web_second_only", nil), 404, "conversation_not_found")
	api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "web_main_only", nil), 200, "")
	api.Want(api.Do("GET", "/v1/conversations/conv_live", "live_all", nil), 200, "")
	api.Want(api.Do("GET", "/v1/conversations/conv_other", "other_test", nil), 200, "")
}

func TestChannelsListingFollowsTheKey(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	ids := func(key, kind string) []string {
		d := api.Want(api.Do("GET", "/v1/channels", key, nil), 200, "").Data()
		var out []string
		for _, item := range d[kind].([]any) {
			out = append(out, item.(map[string]any)["id"].(string))
		}
		return out
	}
	cases := []struct {
		key, kind string
		want      []string
	}{
		{"test_all", "websites", []string{"web_main", "web_second"}},
		{"test_all", "whatsapp", []string{"wa_main", "wa_external"}},
		{"test_all", "email", []string{"support", "hello"}},
		{"web_main_only", "whatsapp", []string{"wa_main"}},
		{"web_main_only", "websites", []string{"web_main"}},
		{"wa_only", "email", nil},
		{"wa_only", "instagram", nil},
		{"other_test", "whatsapp", []string{"wa_other"}},
	}
	for _, c := range cases {
		got := ids(c.key, c.kind)
		if len(got) != len(c.want) {
			t.Errorf("%s %s: %v, want %v", c.key, c.kind, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s %s: %v, want %v", c.key, c.kind, got, c.want)
			}
		}
	}
}
