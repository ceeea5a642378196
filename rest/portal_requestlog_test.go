package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// requestLogs asks GraphQL (as the admin token, test mode) for a page of
// the request log.
func requestLogs(t *testing.T, api *resttest.API, workspace string, live bool, args string) (items []map[string]any, page map[string]any) {
	t.Helper()
	status, body := graphqlMode(t, api, "admin-token", workspace, live, `{ requestLogs`+args+` {
		items { requestId createdAt keyId keyName keyHint method path status errorCode latencyMs conversationId }
		hasMore nextCursor } }`)
	data, _ := body["data"].(map[string]any)
	if status != 200 || data == nil {
		t.Fatalf("requestLogs%s: %d %v", args, status, body)
	}
	page = data["requestLogs"].(map[string]any)
	for _, it := range page["items"].([]any) {
		items = append(items, it.(map[string]any))
	}
	return items, page
}

func TestRequestLogKeepsEveryRequestAndNoSecret(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-log"})
	for range 4 {
		api.Want(api.Do("GET", "/v1/conversations?limit=2", "test_all", nil), 200, "")
	}
	get := api.Want(api.Do("GET", "/v1/conversations/"+conv, "conv_read", nil), 200, "")
	api.Want(api.Do("GET", "/v1/contacts", "msg_read", nil), 403, "insufficient_scope")
	api.Want(api.Do("GET", "/v1/conversations", "revoked", nil), 401, "key_revoked")
	api.Want(api.Do("GET", "/v1/conversations?starting_after=TOPSECRETCURSOR", "test_all", nil), 400, "invalid_cursor")
	api.Want(api.Do("GET", "/v1/conversations", "", nil), 401, "invalid_api_key") // no workspace: not logged
	const n = 9                                                                   // the inbound, 4 lists, the read, 3 refusals
	api.FlushRequestLog()

	items, _ := requestLogs(t, api, "ws_main", false, "(limit: 100)")
	if len(items) != n {
		t.Fatalf("%d rows, want %d: %v", len(items), n, items)
	}
	newest := items[0]
	if newest["path"] != "/v1/conversations" || newest["status"] != 400.0 || newest["errorCode"] != "invalid_cursor" ||
		newest["keyId"] != "key_test_all" || newest["keyName"] != "key_test_all" || newest["method"] != "GET" {
		t.Errorf("newest row %v", newest)
	}
	if hint := newest["keyHint"].(string); !strings.HasPrefix(hint, "svc_test_…") || !strings.HasSuffix(api.Key("test_all"), hint[len(hint)-4:]) {
		t.Errorf("key hint %q", hint)
	}
	byID, _ := requestLogs(t, api, "ws_main", false, fmt.Sprintf(`(filter: {requestId: %q})`, get.Header.Get("X-Request-Id")))
	if len(byID) != 1 || byID[0]["path"] != "/v1/conversations/{id}" || byID[0]["conversationId"] != conv || byID[0]["keyId"] != "key_conv_read" {
		t.Errorf("by request id: %v", byID)
	}
	inbound, _ := requestLogs(t, api, "ws_main", false, `(filter: {path: "/v1/test/inbound"})`)
	if len(inbound) != 1 || inbound[0]["conversationId"] != conv || inbound[0]["status"] != 201.0 {
		t.Errorf("the inbound request: %v", inbound)
	}
	refused, _ := requestLogs(t, api, "ws_main", false, `(filter: {errorCode: "insufficient_scope", status: 403})`)
	if len(refused) != 1 || refused[0]["keyId"] != "key_msg_read" {
		t.Errorf("refusals: %v", refused)
	}
	revoked, _ := requestLogs(t, api, "ws_main", false, `(filter: {keyId: "key_revoked"})`)
	if len(revoked) != 1 || revoked[0]["errorCode"] != "key_revoked" || revoked[0]["status"] != 401.0 {
		t.Errorf("the revoked key's request: %v", revoked)
	}
	// Pages.
	first, page := requestLogs(t, api, "ws_main", false, "(limit: 3)")
	if len(first) != 3 || page["hasMore"] != true {
		t.Fatalf("first page %v", page)
	}
	rest, page := requestLogs(t, api, "ws_main", false, fmt.Sprintf("(limit: 100, after: %q)", page["nextCursor"]))
	if len(rest) != n-3 || page["hasMore"] != false || rest[0]["requestId"] == first[2]["requestId"] {
		t.Errorf("second page: %d rows, %v", len(rest), page)
	}
	// Other modes and workspaces see none of it.
	if live, _ := requestLogs(t, api, "ws_main", true, ""); len(live) != 0 {
		t.Errorf("live mode lists test requests: %v", live)
	}
	if other, _ := requestLogs(t, api, "ws_other", false, ""); len(other) != 0 {
		t.Errorf("another workspace lists them: %v", other)
	}
	// Nothing secret is stored: no key, no query string, no body.
	var rows []string
	if err := api.Store.DB.Select(&rows, `SELECT row_to_json(l)::text FROM api_request_logs l`); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		for _, secret := range []string{api.Key("test_all"), api.Key("conv_read"), "TOPSECRET", "starting_after", "hello", "visitor-log"} {
			if strings.Contains(row, secret) {
				t.Errorf("a log row holds %q: %s", secret, row)
			}
		}
	}
	// The keys' last use is written with the flush.
	var used int
	if err := api.Store.DB.Get(&used, `SELECT count(*) FROM api_keys WHERE id IN ('key_test_all', 'key_conv_read', 'key_msg_read')
		AND last_used_at IS NOT NULL`); err != nil || used != 3 {
		t.Errorf("%d keys with a last use (%v), want 3", used, err)
	}
	// Kept for the retention period (the webhooks', 30 days by default),
	// then purged with the events.
	api.Clock.Advance(29 * 24 * time.Hour)
	if err := api.Resolver.RequestLogs.PurgeExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	if kept, _ := requestLogs(t, api, "ws_main", false, "(limit: 100)"); len(kept) != n {
		t.Errorf("%d rows kept within the retention period, want %d", len(kept), n)
	}
	api.Clock.Advance(24*time.Hour + time.Second)
	if err := api.Resolver.RequestLogs.PurgeExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	if kept, _ := requestLogs(t, api, "ws_main", false, "(limit: 100)"); len(kept) != 0 {
		t.Errorf("%d rows kept past the retention period", len(kept))
	}
}

// A batch's row in the request log is the batch's own answer: its items'
// refusals and conversations are theirs (in the batch's results), not the
// request's.
func TestRequestLogRecordsTheBatchNotItsItems(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	items := []any{
		map[string]any{"conversation_id": "conv_wa_1h", "text": "one"},
		map[string]any{"conversation_id": "conv_wa_25h", "text": "late"},
		map[string]any{"conversation_id": "conv_wa_1h"},
	}
	r := api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": items}), 202, "")
	if refused := r.Data()["refused"]; refused != 2.0 {
		t.Fatalf("refused %v, want 2", refused)
	}
	api.FlushRequestLog()
	rows, _ := requestLogs(t, api, "ws_main", false, fmt.Sprintf(`(filter: {requestId: %q})`, r.Header.Get("X-Request-Id")))
	if len(rows) != 1 || rows[0]["path"] != "/v1/messages/batch" || rows[0]["status"] != 202.0 ||
		rows[0]["errorCode"] != nil || rows[0]["conversationId"] != nil {
		t.Errorf("the batch's row: %v", rows)
	}
}
