package rest_test

import (
	"fmt"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// Prefer: respond-async queues the message after every rule that needs no
// provider: 202 with it queued and Preference-Applied; a retry with its
// Idempotency-Key answers the same message. Without the preference the
// send is synchronous as ever, and a refusal is still answered at once.
func TestSendRespondAsync(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	body := map[string]any{"conversation_id": "conv_wa_1h", "text": "your order shipped"}
	r := api.Want(sendMsg(api, "test_all", body, "Prefer", "respond-async", "Idempotency-Key", "async-1"), 202, "")
	msg := r.Data()
	if msg["status"] != "queued" || r.Header.Get("Preference-Applied") != "respond-async" {
		t.Fatalf("async send: %v, Preference-Applied %q", msg, r.Header.Get("Preference-Applied"))
	}
	again := api.Want(sendMsg(api, "test_all", body, "Prefer", "respond-async", "Idempotency-Key", "async-1"), 202, "")
	if again.Data()["id"] != msg["id"] || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry answered %v", again.Raw)
	}
	got := api.Want(api.Do("GET", "/v1/messages/"+msg["id"].(string), "test_all", nil), 200, "").Data()
	if got["status"] != "queued" {
		t.Fatalf("read back %v", got)
	}
	sync := api.Want(sendMsg(api, "test_all", body), 201, "")
	if sync.Header.Get("Preference-Applied") != "" || sync.Data()["status"] != "sent" {
		t.Fatalf("synchronous send %v, Preference-Applied %q", sync.Raw, sync.Header.Get("Preference-Applied"))
	}
	// The window is checked before anything is queued.
	closed := map[string]any{"conversation_id": "conv_wa_25h", "text": "late"}
	refused := api.Want(sendMsg(api, "test_all", closed, "Prefer", "respond-async"), 422, "window_closed")
	if refused.Header.Get("Preference-Applied") != "" {
		t.Fatal("a refusal says Preference-Applied")
	}
}

// A batch answers every send in order, each with its message or its
// error; its idempotency keys work per item; its progress is a resource.
func TestSendBatch(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	items := []any{
		map[string]any{"conversation_id": "conv_wa_1h", "text": "one", "idempotency_key": "b-1"},
		map[string]any{"conversation_id": "conv_wa_1h"},
		map[string]any{"conversation_id": "conv_wa_25h", "text": "late"},
		map[string]any{"conversation_id": "conv_wa_1h", "text": "four", "idempotency_key": "b-4", "bogus": 1},
		map[string]any{"conversation_id": "conv_wa_1h", "text": "five"},
	}
	r := api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": items}), 202, "")
	b := r.Data()
	results, _ := b["results"].([]any)
	want := []struct {
		status int
		code   string
	}{{202, ""}, {400, "text_required"}, {422, "window_closed"}, {400, "invalid_request"}, {202, ""}}
	if len(results) != len(want) {
		t.Fatalf("%d results for %d sends: %s", len(results), len(want), r.Raw)
	}
	var first string
	for i, w := range want {
		res := results[i].(map[string]any)
		code := ""
		if e, ok := res["error"].(map[string]any); ok {
			code, _ = e["code"].(string)
		}
		if int(res["status"].(float64)) != w.status || code != w.code {
			t.Errorf("result %d: %v, want %d %q", i, res, w.status, w.code)
		}
		if m, ok := res["message"].(map[string]any); ok && m["status"] != "queued" {
			t.Errorf("result %d: message %v, want queued", i, m)
		}
		if i == 0 {
			first, _ = res["message"].(map[string]any)["id"].(string)
		}
	}
	if b["total"] != 5.0 || b["refused"] != 3.0 || b["object"] != "message_batch" {
		t.Fatalf("batch %v", b)
	}
	// A retry: the keyed send answers its message, a key used with another
	// send is refused, the others run again.
	items[0].(map[string]any)["idempotency_key"] = "b-1"
	items[4].(map[string]any)["idempotency_key"] = "b-1"
	again := api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": []any{items[0], items[4]}}), 202, "").Data()
	res := again["results"].([]any)
	one, two := res[0].(map[string]any), res[1].(map[string]any)
	if one["message"].(map[string]any)["id"] != first || one["idempotent_replayed"] != true {
		t.Errorf("the keyed retry answered %v, want message %s replayed", one, first)
	}
	if two["error"].(map[string]any)["code"] != "idempotency_key_reused" || two["status"] != 422.0 {
		t.Errorf("a key reused for another send answered %v", two)
	}
	id := b["id"].(string)
	got := api.Want(api.Do("GET", "/v1/messages/batch/"+id, "test_all", nil), 200, "").Data()
	counts := got["counts"].(map[string]any)
	if got["total"] != 5.0 || counts["queued"] != 2.0 || got["done"] != false {
		t.Fatalf("batch read back %v", got)
	}
	status, gql := graphql(t, api, "admin-token", "ws_main", `{ messageBatch(id: "`+id+`") { total refused done counts { queued sent } } }`)
	data, _ := gql["data"].(map[string]any)
	gb, _ := data["messageBatch"].(map[string]any)
	if gc, _ := gb["counts"].(map[string]any); status != 200 || gb["total"] != 5.0 || gc["queued"] != 2.0 {
		t.Fatalf("GraphQL messageBatch: %d %v", status, gql)
	}
	api.Want(api.Do("GET", "/v1/messages/batch/"+id, "live_all", nil), 404, "batch_not_found")
	api.Want(api.Do("GET", "/v1/messages/batch/batch_nope", "test_all", nil), 404, "batch_not_found")
}

// A batch takes 1 to 1,000 sends.
func TestSendBatchSize(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	many := make([]any, 1001)
	for i := range many {
		many[i] = map[string]any{"conversation_id": "conv_wa_1h", "text": fmt.Sprint(i)}
	}
	api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": many}), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": []any{}}), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/messages/batch", "msg_read", map[string]any{"messages": many[:1]}), 403, "insufficient_scope")
	if n := count(t, api, `SELECT count(*) FROM messages WHERE status = 'queued'`); n != 0 {
		t.Fatalf("%d messages queued by refused batches", n)
	}
}

func count(t *testing.T, api *resttest.API, query string) int {
	t.Helper()
	var n int
	if err := api.Store.DB.Get(&n, query); err != nil {
		t.Fatal(err)
	}
	return n
}
