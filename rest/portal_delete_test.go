package rest_test

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// countOf counts rows of the test's database.
func countOf(t *testing.T, api *resttest.API, query string, args ...any) int {
	t.Helper()
	var n int
	if err := api.Store.DB.Get(&n, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func deleteConversation(t *testing.T, api *resttest.API, workspace string, live bool, id string) (string, map[string]any) {
	t.Helper()
	_, body := graphqlMode(t, api, "admin-token", workspace, live, fmt.Sprintf(`mutation { deleteConversation(id: %q) { id object deleted } }`, id))
	return graphqlCode(body), body
}

func TestDeleteConversationLeavesNothingOfIt(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	w.CreateEndpoint(rc.URL, nil)
	conv := startConv(w.API, map[string]any{"channel": "website", "from": "visitor-delete"})
	msg := w.Want(sendMsg(w.API, "test_all", map[string]any{"conversation_id": conv, "text": "your file",
		"attachments": []any{map[string]any{"filename": "note.txt", "content_base64": base64.StdEncoding.EncodeToString([]byte("inline"))}}}),
		201, "").Data()
	keep := startConv(w.API, map[string]any{"channel": "website", "from": "visitor-keep"})
	w.Want(w.Do("GET", "/v1/conversations/"+conv, "conv_read", nil), 200, "")
	w.FlushRequestLog()
	w.FannedOut()
	rc.WaitEvents(t, 5) // each conversation's created/received, the sent message
	for _, q := range []string{
		`SELECT count(*) FROM events WHERE conversation_id = $1`,
		`SELECT count(*) FROM webhook_deliveries WHERE conversation_id = $1`,
		`SELECT count(*) FROM api_request_logs WHERE conversation_id = $1`,
		`SELECT count(*) FROM files WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = $1)`,
	} {
		if countOf(t, w.API, q, conv) == 0 {
			t.Fatalf("nothing to delete: %s", q)
		}
	}

	// Other workspaces and modes cannot reach it.
	if code, body := deleteConversation(t, w.API, "ws_other", false, conv); code != "conversation_not_found" {
		t.Errorf("from another workspace: %v", body)
	}
	if code, body := deleteConversation(t, w.API, "ws_main", true, conv); code != "conversation_not_found" {
		t.Errorf("from live mode: %v", body)
	}
	if code, body := deleteConversation(t, w.API, "ws_main", false, "conv_live"); code != "conversation_not_found" {
		t.Errorf("a live conversation from test mode: %v", body)
	}

	code, body := deleteConversation(t, w.API, "ws_main", false, conv)
	if code != "" || body["data"].(map[string]any)["deleteConversation"].(map[string]any)["deleted"] != true {
		t.Fatalf("delete: %v", body)
	}
	for _, q := range []string{
		`SELECT count(*) FROM conversations WHERE id = $1`,
		`SELECT count(*) FROM messages WHERE conversation_id = $1`,
		`SELECT count(*) FROM events WHERE conversation_id = $1`,
		`SELECT count(*) FROM webhook_deliveries WHERE conversation_id = $1`,
		`SELECT count(*) FROM api_request_logs WHERE conversation_id = $1`,
	} {
		if n := countOf(t, w.API, q, conv); n != 0 {
			t.Errorf("%d left: %s", n, q)
		}
	}
	if n := countOf(t, w.API, `SELECT count(*) FROM files WHERE message_id = $1`, msg["id"]); n != 0 {
		t.Errorf("%d files of its message left", n)
	}
	if n := countOf(t, w.API, `SELECT count(*) FROM events WHERE conversation_id = $1`, keep); n == 0 {
		t.Errorf("the other conversation lost its events")
	}
	w.Want(w.Do("GET", "/v1/conversations/"+conv, "test_all", nil), 404, "conversation_not_found")

	// Webhooks are told, with ids only.
	w.FannedOut()
	// Events of different conversations arrive in any order: find it.
	var last resttest.Request
	resttest.Eventually(t, "conversation.deleted to arrive", func() bool {
		for _, e := range rc.Events() {
			if e.Type() == "conversation.deleted" {
				last = e
				return true
			}
		}
		return false
	})
	data := last.Data()
	if last.Type() != "conversation.deleted" || data["id"] != conv || data["object"] != "conversation" || data["deleted"] != true {
		t.Fatalf("last event %s %v", last.Type(), data)
	}
	if ids, _ := data["message_ids"].([]any); len(ids) != 2 {
		t.Errorf("message ids %v, want the customer's and the reply", data["message_ids"])
	}
	for k := range data {
		switch k {
		case "id", "object", "deleted", "contact_id", "message_ids":
		default:
			t.Errorf("conversation.deleted carries %s", k)
		}
	}
	if last.Envelope["channel"] != "website" {
		t.Errorf("envelope %v", last.Envelope)
	}
	// Deleting it again: not found.
	if code, _ := deleteConversation(t, w.API, "ws_main", false, conv); code != "conversation_not_found" {
		t.Errorf("second delete: %s", code)
	}

	// A request of it that waited in an API process's batch during the
	// deletion is written after it, and goes at the purge.
	late := "req_late_" + conv
	if err := w.API.Store.InsertRequestLogs(t.Context(), []repo.RequestLog{{RequestID: late, WorkspaceID: "ws_main",
		CreatedAt: w.API.Clock.Now(), KeyID: "key_test_all", Method: "GET", Path: "/v1/conversations/{id}", Status: 200,
		ConversationID: &conv}}); err != nil {
		t.Fatal(err)
	}
	if err := w.API.Resolver.RequestLogs.PurgeExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := countOf(t, w.API, `SELECT count(*) FROM api_request_logs WHERE conversation_id = $1`, conv); n != 0 {
		t.Errorf("%d request log rows of the deleted conversation left after the purge", n)
	}
}
