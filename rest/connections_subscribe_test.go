package rest_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// Connecting a WhatsApp number subscribes the app to its WABA's webhooks
// (POST /{waba_id}/subscribed_apps with the number's token, answered
// {"success":true}:
// https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/subscribed_apps/);
// a refused subscription keeps the credentials and shows on the account,
// with Meta's code and text and never the token.
func TestConnectSubscribesTheWABA(t *testing.T) {
	t.Parallel()
	api, graph := connectableAPI(t)
	subscribes := func() []metatest.Request {
		return graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/subscribed_apps") })
	}
	waNumber := func() map[string]any {
		t.Helper()
		return api.Want(api.Do("GET", "/v1/channels", "live_all", nil), 200, "").Data()["whatsapp"].([]any)[0].(map[string]any)
	}
	if wa := waNumber(); wa["subscription"] != nil {
		t.Fatalf("before any connect: %v", wa)
	}
	connect := `mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "106540352242922",
		wabaId: "102290129340398", accessToken: "EAAGfirst"}) { status connected subscription { status error at } } }`

	got := connection(t, api, connect, "")
	calls := subscribes()
	if len(calls) != 1 || calls[0].Method != "POST" || calls[0].Path != "/v24.0/102290129340398/subscribed_apps" || calls[0].Bearer() != "EAAGfirst" {
		t.Fatalf("subscription calls %+v", calls)
	}
	sub, _ := got["subscription"].(map[string]any)
	if got["connected"] != true || sub["status"] != "ok" || sub["error"] != nil || sub["at"] != "2026-10-15T12:00:00.000Z" {
		t.Fatalf("connected: %v", got)
	}
	if s, _ := waNumber()["subscription"].(map[string]any); s["status"] != "ok" {
		t.Fatalf("GET /v1/channels after a subscription: %v", waNumber())
	}

	// Meta refuses it: still connected (sends work), the failure on the account.
	graph.Fail("/subscribed_apps", 403, 200, 0, "(#200) Permissions error")
	got = connection(t, api, connect, "")
	sub, _ = got["subscription"].(map[string]any)
	if got["connected"] != true || got["status"] != "connected" || sub["status"] != "failed" || sub["error"] != "200: Permissions error" {
		t.Fatalf("after a refused subscription: %v", got)
	}
	wa := waNumber()
	if s, _ := wa["subscription"].(map[string]any); s["status"] != "failed" || s["error"] != "200: Permissions error" || strings.Contains(s["error"].(string), "EAAG") {
		t.Fatalf("GET /v1/channels after a refused subscription: %v", wa)
	}
}
