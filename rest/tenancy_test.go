package rest_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
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

// TestRestrictedKeyManagesOnlyEndpointsInsideIt: a key limited to some
// channels or websites sees, changes, rolls and deletes only endpoints
// limited to some of those; a wider one is a 404, so it cannot point a
// workspace-wide endpoint at itself and read what it may not (issue 15).
func TestRestrictedKeyManagesOnlyEndpointsInsideIt(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	endpoint := func(id string, channels, websites []string) {
		t.Helper()
		e := &repo.WebhookEndpoint{ID: id, WorkspaceID: "ws_main", URL: "https://hooks.example.com/" + id,
			Channels: channels, WebsiteIDs: websites, Events: []string{"*"}, Enabled: true,
			Secret: []byte("sealed"), CreatedAt: api.Clock.Now()}
		if err := api.Store.InsertWebhookEndpoint(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	endpoint("we_all", nil, nil)
	endpoint("we_wa", []string{"whatsapp"}, nil)
	endpoint("we_wa_web", []string{"whatsapp", "website"}, nil)
	endpoint("we_main", nil, []string{"web_main"})
	endpoint("we_second", nil, []string{"web_second"})

	cases := []struct {
		key     string
		inside  []string
		outside []string
	}{
		{"wa_only", []string{"we_wa"}, []string{"we_all", "we_wa_web", "we_main", "we_second"}},
		{"web_main_only", []string{"we_main"}, []string{"we_all", "we_wa", "we_wa_web", "we_second"}},
		{"test_all", []string{"we_all", "we_wa", "we_wa_web", "we_main", "we_second"}, nil},
	}
	for _, c := range cases {
		var listed []string
		for _, item := range api.Want(api.Do("GET", "/v1/webhook-endpoints", c.key, nil), 200, "").Items() {
			listed = append(listed, item.(map[string]any)["id"].(string))
		}
		slices.Sort(listed)
		if want := slices.Sorted(slices.Values(c.inside)); !slices.Equal(listed, want) {
			t.Errorf("%s lists %v, want %v", c.key, listed, want)
		}
		for _, id := range c.outside {
			for _, p := range []struct {
				method, path string
				body         any
			}{
				{"PATCH", "/v1/webhook-endpoints/" + id, map[string]any{"url": "https://attacker.example.com/"}},
				{"PATCH", "/v1/webhook-endpoints/" + id, map[string]any{"description": "mine"}},
				{"POST", "/v1/webhook-endpoints/" + id + "/roll-secret", map[string]any{"grace_hours": 0}},
				{"DELETE", "/v1/webhook-endpoints/" + id, nil},
			} {
				if r := api.Do(p.method, p.path, c.key, p.body); r.Status != 404 || r.Code() != "endpoint_not_found" {
					t.Errorf("%s: %s %s got %d %q, want 404 endpoint_not_found", c.key, p.method, p.path, r.Status, r.Code())
				}
			}
		}
	}
	// Nothing outside was changed.
	var url string
	if err := api.Store.DB.Get(&url, `SELECT url FROM webhook_endpoints WHERE id = 'we_all' AND deleted_at IS NULL`); err != nil || url != "https://hooks.example.com/we_all" {
		t.Errorf("we_all: url %q, %v", url, err)
	}
	// Inside, a body that names more than the key answers 403.
	api.Want(api.Do("PATCH", "/v1/webhook-endpoints/we_wa", "wa_only", map[string]any{"channels": []string{"website"}}), 403, "channel_not_allowed")
	api.Want(api.Do("PATCH", "/v1/webhook-endpoints/we_main", "web_main_only", map[string]any{"website_ids": []string{"web_second"}}), 403, "website_not_allowed")
	api.Want(api.Do("POST", "/v1/webhook-endpoints", "wa_only", map[string]any{"url": "https://hooks.example.com/x", "channels": []string{"email"}}), 403, "channel_not_allowed")
	// ... and "all" means all the key may use.
	d := api.Want(api.Do("PATCH", "/v1/webhook-endpoints/we_wa", "wa_only", map[string]any{"channels": []string{}}), 200, "").Data()
	if got := d["channels"]; !reflect.DeepEqual(got, []any{"whatsapp"}) {
		t.Errorf("channels [] stored as %v, want [whatsapp]", got)
	}
	api.Want(api.Do("POST", "/v1/webhook-endpoints/we_wa/roll-secret", "wa_only", map[string]any{"grace_hours": 0}), 200, "")
	api.Want(api.Do("DELETE", "/v1/webhook-endpoints/we_main", "web_main_only", nil), 200, "")
}
