package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The portal's webhook operations over /graphql: a test event sent, then
// found among the endpoint's deliveries with its attempt (the attempts of
// a page come in one batch), and a recovery followed by its id.
func TestGraphQLWebhookPortal(t *testing.T) {
	t.Parallel()
	api := resttest.New(t, func(a *resttest.API) { a.Config.Webhooks = resttest.WebhookConfig() })
	rc := resttest.NewReceiver(t, func(int, resttest.Request) int { return 503 })
	ep := api.Want(api.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": rc.URL}), 201, "").Data()
	id := ep["id"].(string)

	_, body := graphql(t, api, "admin-token", "ws_main", `mutation { sendTestEvent(endpointId: "`+id+`") {
		outcome status reason eventId delivery { id status } } }`)
	sent, _ := body["data"].(map[string]any)["sendTestEvent"].(map[string]any)
	if sent["outcome"] != "refused" || sent["status"] != 503.0 || sent["reason"] != "the endpoint answered HTTP 503" {
		t.Fatalf("sendTestEvent %v", body)
	}
	_, body = graphql(t, api, "admin-token", "ws_main", `mutation { sendTestEvent(endpointId: "`+id+`") { outcome } }`)
	if code := graphqlCode(body); code != "rate_limited" {
		t.Errorf("a second test event at once: %v", body)
	}

	_, body = graphql(t, api, "admin-token", "ws_main", `{ webhookDeliveries(filter: {endpointId: "`+id+`", status: "failed"}) {
		items { id eventId eventType attempts attemptLog { responseStatus latencyMs responseBody error } } hasMore } }`)
	page, _ := body["data"].(map[string]any)["webhookDeliveries"].(map[string]any)
	items, _ := page["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("deliveries %v", body)
	}
	d := items[0].(map[string]any)
	log, _ := d["attemptLog"].([]any)
	if d["eventType"] != "endpoint.test" || d["eventId"] != sent["eventId"] || len(log) != 1 ||
		log[0].(map[string]any)["responseStatus"] != 503.0 || log[0].(map[string]any)["error"] == nil {
		t.Errorf("delivery %v", d)
	}
	// Another workspace sees none of it.
	_, body = graphql(t, api, "admin-token", "ws_other", `{ webhookDeliveries(filter: {endpointId: "`+id+`"}) { items { id } } }`)
	if items := body["data"].(map[string]any)["webhookDeliveries"].(map[string]any)["items"].([]any); len(items) != 0 {
		t.Errorf("another workspace lists %v", items)
	}

	_, body = graphql(t, api, "admin-token", "ws_main", `mutation { recoverDeliveries(endpointId: "`+id+`", since: "2026-10-01T00:00:00Z") {
		id state total done } }`)
	rec, _ := body["data"].(map[string]any)["recoverDeliveries"].(map[string]any)
	if rec["state"] != "done" || rec["total"] != 0.0 {
		t.Errorf("a recovery with nothing to replay (test events are not): %v", body)
	}
	_, body = graphql(t, api, "admin-token", "ws_main", `{ webhookRecovery(id: "`+rec["id"].(string)+`") { state done total } }`)
	if got := body["data"].(map[string]any)["webhookRecovery"].(map[string]any); got["state"] != "done" {
		t.Errorf("webhookRecovery %v", body)
	}
	_, body = graphql(t, api, "admin-token", "ws_other", `{ webhookRecovery(id: "`+rec["id"].(string)+`") { state } }`)
	if code := graphqlCode(body); code != "recovery_not_found" {
		t.Errorf("another workspace's recovery: %v", body)
	}
	_, body = graphql(t, api, "admin-token", "ws_main", `mutation { showEndpointSecret(id: "`+id+`") { secret } }`)
	if got := body["data"].(map[string]any)["showEndpointSecret"].(map[string]any); got["secret"] != ep["secret"] {
		t.Errorf("showEndpointSecret with the admin token: %v", body)
	}
}
