package rest_test

import (
	"reflect"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func patchConv(api *resttest.API, id string, body map[string]any) *resttest.Response {
	return api.Do("PATCH", "/v1/conversations/"+id, "test_all", body)
}

func TestConversationTransitions(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	web := api.Inbound("website", "visitor-1", "hi")["conversation"].(map[string]any)["id"].(string)
	wa := api.Inbound("whatsapp", "+15550100001", "hi")["conversation"].(map[string]any)["id"].(string)

	steps := []struct {
		name   string
		id     string
		body   map[string]any
		status int
		code   string
		want   map[string]any
	}{
		{"human queues", wa, map[string]any{"mode": "human"}, 200, "", map[string]any{"mode": "queued_for_human"}},
		{"ai takes over", wa, map[string]any{"mode": "ai"}, 200, "", map[string]any{"mode": "ai"}},
		{"close", wa, map[string]any{"status": "closed"}, 200, "", map[string]any{"status": "closed"}},
		{"mode of a closed whatsapp chat", wa, map[string]any{"mode": "human"}, 422, "conversation_closed", nil},
		{"reopen and hand over at once", wa, map[string]any{"status": "open", "mode": "human"}, 200, "", map[string]any{"status": "open", "mode": "queued_for_human"}},
		{"close website", web, map[string]any{"status": "closed"}, 200, "", map[string]any{"status": "closed"}},
		{"mode of a closed website chat", web, map[string]any{"mode": "ai"}, 422, "conversation_closed", nil},
		{"reopen comes back with the AI", web, map[string]any{"status": "open"}, 200, "", map[string]any{"status": "open", "mode": "ai"}},
		{"assign active agent", web, map[string]any{"assigned_agent_id": "usr_alice"}, 200, "", map[string]any{"assigned_agent_id": "usr_alice"}},
		{"inactive agent", web, map[string]any{"assigned_agent_id": "usr_bob"}, 422, "agent_not_found", nil},
		{"unknown agent", web, map[string]any{"assigned_agent_id": "usr_nobody"}, 422, "agent_not_found", nil},
		{"agent of another workspace is unknown", web, map[string]any{"assigned_agent_id": "usr_other"}, 422, "agent_not_found", nil},
		{"tags are replaced and deduplicated", web, map[string]any{"tags": []string{"vip", "billing", "vip"}}, 200, "", map[string]any{"tags": []any{"vip", "billing"}}},
		{"leaving assignment out keeps it", web, map[string]any{"tags": []string{}}, 200, "", map[string]any{"assigned_agent_id": "usr_alice", "tags": []any{}}},
		{"null unassigns", web, map[string]any{"assigned_agent_id": nil}, 200, "", map[string]any{"assigned_agent_id": nil}},
		{"bad status", web, map[string]any{"status": "archived"}, 400, "invalid_request", nil},
		{"bad mode", web, map[string]any{"mode": "robot"}, 400, "invalid_request", nil},
		{"empty tag", web, map[string]any{"tags": []string{""}}, 400, "invalid_request", nil},
		{"unknown conversation", "conv_missing", map[string]any{"status": "closed"}, 404, "conversation_not_found", nil},
	}
	for _, s := range steps {
		r := patchConv(api, s.id, s.body)
		if r.Status != s.status || r.Code() != s.code {
			t.Fatalf("%s: got %d %q, want %d %q: %s", s.name, r.Status, r.Code(), s.status, s.code, r.Raw)
		}
		for k, v := range s.want {
			if got := r.Data()[k]; !reflect.DeepEqual(got, v) {
				t.Errorf("%s: %s = %v, want %v", s.name, k, got, v)
			}
		}
		if s.status == 200 {
			stored := api.Want(api.Do("GET", "/v1/conversations/"+s.id, "test_all", nil), 200, "").Data()
			if !reflect.DeepEqual(stored, r.Data()) {
				t.Errorf("%s: GET differs from the PATCH answer:\n%v\n%v", s.name, stored, r.Data())
			}
		}
	}
}

func TestConversationUpdatedEventsNameWhatChanged(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	id := api.Inbound("whatsapp", "+15550100002", "hi")["conversation"].(map[string]any)["id"].(string)
	api.Want(patchConv(api, id, map[string]any{"mode": "human", "tags": []string{"a"}}), 200, "")
	api.Want(patchConv(api, id, map[string]any{"mode": "human"}), 200, "") // no change, no event
	api.Want(patchConv(api, id, map[string]any{"status": "closed"}), 200, "")

	var changes [][]any
	for _, e := range api.Events("ws_main") {
		if e.Type == "conversation.updated" {
			data := e.Envelope["data"].(map[string]any)
			if data["id"] != id || e.Envelope["livemode"] != false || e.Envelope["channel"] != "whatsapp" {
				t.Errorf("envelope %v", e.Envelope)
			}
			changes = append(changes, data["changed"].([]any))
		}
	}
	want := [][]any{{"mode", "tags"}, {"status"}}
	if !reflect.DeepEqual(changes, want) {
		t.Errorf("changed lists %v, want %v", changes, want)
	}
}

func TestConversationListFilters(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	count := func(key, query string) int {
		r := api.Want(api.Do("GET", "/v1/conversations?limit=100&"+query, key, nil), 200, "")
		return len(r.Items())
	}
	cases := []struct {
		key, query string
		want       int
	}{
		{"test_all", "", 4},
		{"test_all", "channel=whatsapp", 3},
		{"test_all", "channel=website", 1},
		{"test_all", "status=closed", 1},
		{"test_all", "website_id=web_main", 4},
		{"test_all", "website_id=web_second", 0},
		{"test_all", "updated_since=2026-10-15T10:30:00.000Z", 2},
		{"test_all", "updated_since=2026-10-15", 3},
		{"live_all", "", 1},
		{"wa_only", "", 3},
		{"web_second_only", "", 0},
		{"other_test", "", 1},
	}
	for _, c := range cases {
		if got := count(c.key, c.query); got != c.want {
			t.Errorf("%s ?%s: %d conversations, want %d", c.key, c.query, got, c.want)
		}
	}
	bad := []struct{ key, query, code string }{
		{"test_all", "channel=sms", "invalid_request"},
		{"test_all", "status=pending", "invalid_request"},
		{"test_all", "updated_since=yesterday", "invalid_request"},
		{"test_all", "sort=asc", "invalid_request"},
		{"wa_only", "channel=website", "channel_not_allowed"},
		{"web_main_only", "website_id=web_second", "website_not_allowed"},
	}
	for _, c := range bad {
		r := api.Do("GET", "/v1/conversations?"+c.query, c.key, nil)
		if r.Code() != c.code {
			t.Errorf("%s ?%s: got %d %q, want %s", c.key, c.query, r.Status, r.Code(), c.code)
		}
	}
}
