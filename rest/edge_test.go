package rest_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestTextPostgresCannotStoreIsRefusedAtTheEdge: a NUL in a body string,
// in a query parameter or an id, and bytes that are not UTF-8 answer 400
// invalid_request naming where they were, or the id's own 404; never 500
// (issue 15).
func TestTextPostgresCannotStoreIsRefusedAtTheEdge(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	bad := []struct {
		method, path string
		body         any
		header       []string
		status       int
		code, names  string
	}{
		{"POST", "/v1/contacts", `{"name": "Ann\u0000"}`, nil, 400, "invalid_request", "name holds a NUL"},
		{"POST", "/v1/contacts", `{"name": "Ann", "email": "a\u0000@example.com"}`, nil, 400, "invalid_request", "email holds a NUL"},
		{"PATCH", "/v1/conversations/conv_wa_1h", `{"tags": ["ok", "x\u0000"]}`, nil, 400, "invalid_request", "tags[1] holds a NUL"},
		{"PATCH", "/v1/contacts/ct_recent", `{"name": "\u0000"}`, nil, 400, "invalid_request", "name holds a NUL"},
		{"POST", "/v1/messages", `{"conversation_id": "conv_wa_1h", "text": "hi\u0000"}`, nil, 400, "invalid_request", "text holds a NUL"},
		{"POST", "/v1/webhook-endpoints", `{"url": "https://example.com/\u0000"}`, nil, 400, "invalid_request", "url holds a NUL"},
		{"POST", "/v1/contacts", `{"n\u0000me": "Ann"}`, nil, 400, "invalid_request", "(a key)"},
		{"POST", "/v1/contacts", "{\"name\": \"\xff\xfe\"}", nil, 400, "invalid_request", "not valid UTF-8"},
		{"GET", "/v1/conversations?starting_after=%00", nil, nil, 400, "invalid_request", "starting_after"},
		{"GET", "/v1/contacts?email=%ff", nil, nil, 400, "invalid_request", "email"},
		{"POST", "/v1/contacts", `{"name": "Ann"}`, []string{"Idempotency-Key", "k\xff\xfe"}, 400, "invalid_request", "Idempotency-Key"},
		{"GET", "/v1/conversations/conv%00x", nil, nil, 404, "conversation_not_found", ""},
		{"PATCH", "/v1/conversations/%ff", `{"tags": []}`, nil, 404, "conversation_not_found", ""},
		{"GET", "/v1/conversations/%00/messages", nil, nil, 404, "conversation_not_found", ""},
		{"GET", "/v1/contacts/ct_%00", nil, nil, 404, "contact_not_found", ""},
		{"DELETE", "/v1/contacts/%c3", nil, nil, 404, "contact_not_found", ""},
		{"GET", "/v1/messages/msg_%00", nil, nil, 404, "message_not_found", ""},
		{"GET", "/v1/events/evt_%ff", nil, nil, 404, "event_not_found", ""},
		{"PATCH", "/v1/webhook-endpoints/%00", `{"description": "x"}`, nil, 404, "endpoint_not_found", ""},
		{"POST", "/v1/webhook-deliveries/%00/replay", nil, nil, 404, "delivery_not_found", ""},
	}
	for _, c := range bad {
		r := api.Do(c.method, c.path, "test_all", c.body, c.header...)
		msg, _ := r.Body["error"].(map[string]any)["message"].(string)
		if r.Status != c.status || r.Code() != c.code || !strings.Contains(msg, c.names) {
			t.Errorf("%s %s %q: %d %s, want %d %s naming %q", c.method, c.path, c.body, r.Status, r.Raw, c.status, c.code, c.names)
		}
	}

	// GraphQL arguments, inline or as variables, are refused the same way.
	_, body := graphql(t, api, "admin-token", "ws_main", `mutation { createContact(input: {name: "Ann\u0000"}) { id } }`)
	errs, _ := body["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "invalid_request" ||
		!strings.Contains(errs[0].(map[string]any)["message"].(string), "input.name") {
		t.Errorf("GraphQL NUL: %v", body)
	}
	_, body = graphql(t, api, "admin-token", "ws_main", `{ conversation(id: "conv\u0000") { id } }`)
	if errs, _ := body["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "invalid_request" {
		t.Errorf("GraphQL NUL id: %v", body)
	}
}

// TestLimitsBoundWork: over-long names and texts, and a replay body that is
// not an empty object, answer 400 invalid_request (issue 15).
func TestLimitsBoundWork(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	long := strings.Repeat("a", 257)
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"name": long, "email": "long@example.com"}), 400, "invalid_request")
	api.Want(api.Do("PATCH", "/v1/contacts/ct_recent", "test_all", map[string]any{"name": long}), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"name": long[:256], "email": "ok@example.com"}), 201, "")
	r := api.Do("POST", "/v1/test/inbound", "test_all", map[string]any{"channel": "website", "from": "v-long", "text": strings.Repeat("x", 64<<10+1)})
	if r.Status != 400 || r.Code() != "invalid_request" {
		t.Errorf("a 64 KiB + 1 chat text: %d %s", r.Status, r.Raw)
	}
	api.Want(api.Do("POST", "/v1/webhook-deliveries/whd_missing/replay", "test_all", `{"surprise": 1}`), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/webhook-deliveries/whd_missing/replay", "test_all", `{}`), 404, "delivery_not_found")
}
