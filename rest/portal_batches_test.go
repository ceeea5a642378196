package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// portalBatches is messageBatches as a member sees it over /graphql with
// her session (live mode when live): its items, and the first error's code.
func portalBatches(t *testing.T, api *resttest.API, cookie string, live bool) ([]map[string]any, string) {
	t.Helper()
	mode := "false"
	if live {
		mode = "true"
	}
	data, code := asMember(t, api, cookie, `{ messageBatches(limit: 10) { items { id total refused done
		counts { queued sending sent delivered read failed } } hasMore } }`, "Msgsvc-Livemode", mode)
	page, _ := data["messageBatches"].(map[string]any)
	items, _ := page["items"].([]any)
	var out []map[string]any
	for _, it := range items {
		out = append(out, it.(map[string]any))
	}
	return out, code
}

// The portal's Batches over /graphql: a developer lists the batches of
// her workspace in the mode the app shows, with their counts; an agent is
// refused; another workspace's member sees none of them.
func TestPortalBatchesPerRole(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	sends := []any{
		map[string]any{"conversation_id": "conv_wa_1h", "text": "one"},
		map[string]any{"conversation_id": "conv_wa_1h", "text": "two"},
		map[string]any{"conversation_id": "conv_wa_25h", "text": "late"},
	}
	test := api.Want(api.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": sends}), 202, "").Data()
	live := api.Want(api.Do("POST", "/v1/messages/batch", "live_all", map[string]any{"messages": sends[2:]}), 202, "").Data()
	dev := signIn(t, api, sink, "devi@main.test")
	agent := signIn(t, api, sink, "alice@main.test")
	other := signIn(t, api, sink, "oona@other.test")

	if _, code := portalBatches(t, api, agent, false); code != "forbidden" {
		t.Errorf("an agent's messageBatches: %q, want forbidden", code)
	}
	got, code := portalBatches(t, api, dev, false)
	if code != "" || len(got) != 1 || got[0]["id"] != test["id"] {
		t.Fatalf("the developer's test batches: %v %q, want %v alone", got, code, test["id"])
	}
	counts, _ := got[0]["counts"].(map[string]any)
	if got[0]["total"] != 3.0 || got[0]["refused"] != 1.0 || got[0]["done"] != false || counts["queued"] != 2.0 {
		t.Errorf("the test batch %v, want 3 sends, 1 refused, 2 queued, not done", got[0])
	}
	if got, code := portalBatches(t, api, dev, true); code != "" || len(got) != 1 || got[0]["id"] != live["id"] || got[0]["done"] != true {
		t.Errorf("the developer's live batches: %v %q, want %v alone, done", got, code, live["id"])
	}
	if got, code := portalBatches(t, api, other, false); code != "" || len(got) != 0 {
		t.Errorf("ws_other's owner lists %v %q, want none", got, code)
	}
}
