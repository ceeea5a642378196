package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestWebhookEndpointCreateAndList(t *testing.T) {
	t.Parallel()
	cfg := resttest.WebhookConfig()
	cfg.EgressIPs = []string{"203.0.113.10", "203.0.113.11"}
	w := resttest.NewWorld(t, cfg)
	rc := resttest.NewReceiver(t, nil)

	w.Want(w.Do("GET", "/v1/webhook-endpoints", "conv_read", nil), 403, "insufficient_scope")
	w.Want(w.Do("POST", "/v1/webhook-endpoints", "conv_read", map[string]any{"url": rc.URL}), 403, "insufficient_scope")

	d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "webhooks", map[string]any{
		"url": rc.URL, "description": " orders ", "channels": []string{"website", "website"},
		"events": []string{"message.received"}, "metadataOnly": true, "testEvents": true}), 201, "").Data()
	want := map[string]any{"object": "webhook_endpoint", "url": rc.URL, "description": "orders",
		"channels": []any{"website"}, "events": []any{"message.received"}, "website_ids": []any{},
		"metadata_only": true, "test_events": true, "status": "active", "disabled_reason": nil,
		"verification": map[string]any{"verified": true, "reason": nil}}
	for k, v := range want {
		if got := d[k]; !equalJSON(got, v) {
			t.Errorf("created %s = %v, want %v", k, got, v)
		}
	}
	if id, _ := d["id"].(string); !strings.HasPrefix(id, "we_") || d["verified_at"] == nil || d["created_at"] == nil {
		t.Errorf("created %v", d)
	}
	// Defaults: every event, all channels and websites, live events only.
	plain := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": rc.URL}), 201, "").Data()
	if !equalJSON(plain["events"], []any{"*"}) || !equalJSON(plain["channels"], []any{}) || plain["test_events"] != false || plain["metadata_only"] != false {
		t.Errorf("defaults: %v", plain)
	}

	list := w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Data()
	if got := keysOf(list); !slices.Equal(got, []string{"egress_ips", "items"}) {
		t.Errorf("list keys %v", got)
	}
	if !equalJSON(list["egress_ips"], []any{"203.0.113.10", "203.0.113.11"}) {
		t.Errorf("egress_ips %v", list["egress_ips"])
	}
	items := list["items"].([]any)
	if len(items) != 2 || items[0].(map[string]any)["id"] != d["id"] {
		t.Fatalf("items %v", items)
	}
	for _, item := range items {
		if _, ok := item.(map[string]any)["secret"]; ok {
			t.Errorf("a listed endpoint shows its secret")
		}
	}
	// Endpoints are workspace configuration: live keys see them too, other
	// workspaces do not.
	if n := len(w.Want(w.Do("GET", "/v1/webhook-endpoints", "live_all", nil), 200, "").Items()); n != 2 {
		t.Errorf("the live key lists %d endpoints", n)
	}
	if n := len(w.Want(w.Do("GET", "/v1/webhook-endpoints", "other_test", nil), 200, "").Items()); n != 0 {
		t.Errorf("another workspace lists %d endpoints", n)
	}
}

func TestWebhookEndpointValidation(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	cases := []struct {
		key    string
		body   any
		status int
		code   string
	}{
		{"test_all", map[string]any{}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": "not a url"}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": "ftp://example.com/hook"}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": "/relative"}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "events": []string{}}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "events": []string{"message.deleted"}}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "events": []string{"endpoint.verification"}}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "channels": []string{"fax"}}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "website_ids": []string{"web_other"}}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "description": strings.Repeat("d", 501)}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "metadata_only": true, "metadataOnly": true}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "test_events": false, "testEvents": true}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "test_events": "yes"}, 400, "invalid_request"},
		{"test_all", map[string]any{"url": rc.URL, "testEvents": "yes"}, 400, "invalid_request"},
		{"wa_only", map[string]any{"url": rc.URL, "channels": []string{"website"}}, 403, "channel_not_allowed"},
		{"web_main_only", map[string]any{"url": rc.URL, "website_ids": []string{"web_second"}}, 403, "website_not_allowed"},
	}
	for _, c := range cases {
		r := w.Do("POST", "/v1/webhook-endpoints", c.key, c.body)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s %v: got %d %q, want %d %q", c.key, c.body, r.Status, r.Code(), c.status, c.code)
		}
	}
	// A restricted key's "all" is what it may see.
	d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "wa_only", map[string]any{"url": rc.URL}), 201, "").Data()
	if !equalJSON(d["channels"], []any{"whatsapp"}) {
		t.Errorf("a WhatsApp-only key made an endpoint for %v", d["channels"])
	}
	if n := len(w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()); n != 1 {
		t.Errorf("%d endpoints exist after the refusals", n)
	}
}

func TestWebhookEndpointPatchDeleteAndTenancy(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	// The first event succeeds, later ones fail and wait for a retry.
	rc := resttest.NewReceiver(t, func(n int, _ resttest.Request) int {
		if n == 1 {
			return 200
		}
		return 500
	})
	ep := w.CreateEndpoint(rc.URL, map[string]any{"events": []string{"message.received"}})
	path := "/v1/webhook-endpoints/" + ep.ID

	r := w.Want(w.Do("PATCH", path, "test_all", map[string]any{"events": []string{"message.received", "message.status"}}), 200, "").Data()
	if !slices.Equal(keysOf(r), []string{"events", "id", "object"}) || !equalJSON(r["events"], []any{"message.received", "message.status"}) {
		t.Errorf("PATCH events answered %v", r)
	}
	// A new URL is verified again: one that does not echo stays unverified.
	r = w.Want(w.Do("PATCH", path, "test_all", map[string]any{"url": rc.NoVerifyURL()}), 200, "").Data()
	if r["url"] != rc.NoVerifyURL() || r["status"] != "unverified" || r["verified_at"] != nil ||
		r["verification"].(map[string]any)["verified"] != false {
		t.Errorf("PATCH to a URL that does not verify answered %v", r)
	}
	r = w.Want(w.Do("PATCH", path, "test_all", map[string]any{"url": rc.URL}), 200, "").Data()
	if r["status"] != "active" || r["verified_at"] == nil || r["verification"].(map[string]any)["verified"] != true {
		t.Errorf("PATCH back to a verifying URL answered %v", r)
	}
	r = w.Want(w.Do("PATCH", path, "test_all", map[string]any{"enabled": false}), 200, "").Data()
	if r["enabled"] != false || r["status"] != "disabled" || r["disabled_reason"] != "manual" {
		t.Errorf("PATCH enabled false answered %v", r)
	}
	r = w.Want(w.Do("PATCH", path, "test_all", map[string]any{"enabled": true, "channels": []string{"website"}}), 200, "").Data()
	if r["status"] != "active" || r["disabled_reason"] != nil || !equalJSON(r["channels"], []any{"website"}) {
		t.Errorf("PATCH enabled true answered %v", r)
	}
	w.Want(w.Do("PATCH", path, "test_all", map[string]any{"events": []string{"nope"}}), 400, "invalid_request")
	w.Want(w.Do("PATCH", path, "test_all", map[string]any{"url": "http://"}), 400, "invalid_request")

	// Another workspace cannot reach the endpoint, its deliveries or events.
	w.Inbound("website", "visitor-tenancy", "one")
	succeeded := newestDelivery(w, ep.ID)
	w.WaitDelivery(succeeded, "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	event := w.Delivery(succeeded).EventID
	for _, c := range []struct{ method, path, code string }{
		{"PATCH", path, "endpoint_not_found"},
		{"DELETE", path, "endpoint_not_found"},
		{"POST", path + "/roll-secret", "endpoint_not_found"},
		{"POST", "/v1/webhook-deliveries/" + succeeded + "/replay", "delivery_not_found"},
		{"GET", "/v1/events/" + event, "event_not_found"},
	} {
		var body any
		if c.method != "GET" && c.method != "DELETE" {
			body = map[string]any{"grace_hours": 1}
			if strings.HasSuffix(c.path, "/replay") {
				body = map[string]any{} // replay takes no fields
			}
			if c.method == "PATCH" {
				body = map[string]any{"enabled": false}
			}
		}
		w.Want(w.Do(c.method, c.path, "other_test", body), 404, c.code)
	}

	// DELETE drops the delivery still retrying and keeps the finished one.
	w.Inbound("website", "visitor-tenancy", "two")
	retrying := newestDelivery(w, ep.ID)
	w.WaitDelivery(retrying, "to retry", func(d *repo.WebhookDelivery) bool { return d.Status == "retrying" })
	r = w.Want(w.Do("DELETE", path, "test_all", nil), 200, "").Data()
	if r["id"] != ep.ID || r["deleted"] != true {
		t.Errorf("DELETE answered %v", r)
	}
	left := w.Deliveries(ep.ID, "test_all")
	if len(left) != 1 || left[0]["id"] != succeeded {
		t.Errorf("deliveries after DELETE: %v", left)
	}
	if n := len(w.Want(w.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 200, "").Items()); n != 0 {
		t.Errorf("a deleted endpoint is listed")
	}
	w.Want(w.Do("DELETE", path, "test_all", nil), 404, "endpoint_not_found")
	w.Want(w.Do("PATCH", path, "test_all", map[string]any{"enabled": true}), 404, "endpoint_not_found")
	w.Want(w.Do("POST", "/v1/webhook-deliveries/"+succeeded+"/replay", "test_all", nil), 400, "endpoint_disabled")
}

func newestDelivery(w *resttest.World, endpointID string) string {
	w.T.Helper()
	w.FannedOut()
	ds := w.Deliveries(endpointID, "test_all")
	if len(ds) == 0 {
		w.T.Fatalf("no delivery for %s", endpointID)
	}
	return ds[0]["id"].(string)
}

// equalJSON compares decoded JSON values.
func equalJSON(got, want any) bool { return reflect.DeepEqual(got, want) }

func TestWebhooksOverGraphQL(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	status, body := graphql(t, w.API, "admin-token", "ws_main", `mutation { createWebhookEndpoint(input: {
		url: "`+rc.URL+`", events: ["message.received"], testEvents: true, websiteIds: ["web_main"]
	}) { id status secret websiteIds verification { verified } } }`)
	created, _ := body["data"].(map[string]any)["createWebhookEndpoint"].(map[string]any)
	if status != 200 || created["status"] != "active" || !strings.HasPrefix(created["secret"].(string), "whsec_") ||
		!equalJSON(created["websiteIds"], []any{"web_main"}) {
		t.Fatalf("%d %v", status, body)
	}
	status, body = graphql(t, w.API, "admin-token", "ws_main", `{ webhookEndpoints { items { id secret } egressIps } }`)
	list, _ := body["data"].(map[string]any)["webhookEndpoints"].(map[string]any)
	items, _ := list["items"].([]any)
	if status != 200 || len(items) != 1 || items[0].(map[string]any)["secret"] != nil {
		t.Fatalf("%d %v", status, body)
	}
	status, body = graphql(t, w.API, "admin-token", "ws_main", `{ webhookDeliveries(filter: {status: "lost"}) { items { id } } }`)
	errs, _ := body["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "invalid_request" {
		t.Fatalf("%d %v", status, body)
	}
}

func TestPatchingTheSameURLVerifiesAnUnverifiedEndpointAgain(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	var fixed atomic.Bool // the receiver echoes the challenge once "fixed"
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var e struct {
			Data map[string]any `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&e)
		if !fixed.Load() {
			e.Data = nil
		}
		_ = json.NewEncoder(rw).Encode(e.Data)
	}))
	t.Cleanup(srv.Close)
	d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": srv.URL}), 201, "").Data()
	if d["status"] != "unverified" {
		t.Fatalf("created %v", d)
	}
	fixed.Store(true)
	r := w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+d["id"].(string), "test_all", map[string]any{"url": srv.URL}), 200, "").Data()
	if r["status"] != "active" || r["verification"].(map[string]any)["verified"] != true {
		t.Fatalf("PATCH with the same URL answered %v", r)
	}
	// A verified endpoint given its own URL again is left as it is.
	r = w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+d["id"].(string), "test_all", map[string]any{"url": srv.URL}), 200, "").Data()
	if r["status"] != "active" || r["verification"] != nil || r["verified_at"] == nil {
		t.Fatalf("PATCH of a verified endpoint with its URL answered %v", r)
	}
}

// The endpoint flags are taken as the API reference's request names them
// (metadataOnly, testEvents) and as the endpoint object names them
// (metadata_only, test_events); answers, a PATCH's included, use the
// object's.
func TestWebhookEndpointFlagSpellings(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	d := w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{
		"url": rc.URL, "metadata_only": true, "test_events": true}), 201, "").Data()
	if d["metadata_only"] != true || d["test_events"] != true || d["metadataOnly"] != nil {
		t.Errorf("created with the object's spelling: %v", d)
	}
	path := "/v1/webhook-endpoints/" + d["id"].(string)
	for _, body := range []map[string]any{{"metadataOnly": false, "testEvents": false}, {"metadata_only": true, "test_events": true}} {
		r := w.Want(w.Do("PATCH", path, "test_all", body), 200, "").Data()
		want := body["metadataOnly"] != false
		if !slices.Equal(keysOf(r), []string{"id", "metadata_only", "object", "test_events"}) || r["metadata_only"] != want || r["test_events"] != want {
			t.Errorf("PATCH %v answered %v", body, r)
		}
	}
	w.Want(w.Do("PATCH", path, "test_all", map[string]any{"testEvents": true, "test_events": true}), 400, "invalid_request")
}

// roll-secret's body is optional: without one, or without grace_hours, the
// old secret co-signs for 24 hours; null is not a number of hours.
func TestRollSecretDefaultsTo24Hours(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	path := "/v1/webhook-endpoints/" + w.CreateEndpoint(rc.URL, nil).ID + "/roll-secret"
	for _, body := range []any{nil, map[string]any{}} {
		r := w.Want(w.Do("POST", path, "test_all", body), 200, "").Data()
		if r["grace_hours"] != 24.0 || !strings.HasPrefix(r["secret"].(string), "whsec_") {
			t.Errorf("roll with %v answered %v", body, r)
		}
	}
	w.Want(w.Do("POST", path, "test_all", map[string]any{"grace_hours": nil}), 400, "invalid_request")
	if r := w.Want(w.Do("POST", path, "test_all", map[string]any{"grace_hours": 0}), 200, "").Data(); r["grace_hours"] != 0.0 {
		t.Errorf("grace_hours 0 answered %v", r)
	}
}
