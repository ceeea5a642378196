package rest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A media id is downloaded once: Meta's retry of the same payload (a new
// stored hook) downloads nothing, and another message with the same media
// id reuses the stored bytes.
func TestMetaHookMediaDownloadedOnce(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	photo := []byte("\x89PNG\r\n\x1a\nstand-in image bytes")
	sum := sha256.Sum256(photo)
	photoSHA := base64.StdEncoding.EncodeToString(sum[:])
	h.graph.AddMedia("media.ONCE", photo, "image/png", hookToken, "")
	at := resttest.Epoch.Unix() - 60
	image := func(wamid string) map[string]any {
		return waChange("messages", waValue("messages",
			waMessage(wamid, at, "image", map[string]any{"id": "media.ONCE", "mime_type": "image/png", "sha256": photoSHA})))
	}
	downloads := func() int {
		return len(h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "media.ONCE") }))
	}
	h.deliver(image("wamid.ONCE1"))
	if downloads() != 2 { // the media info, then its bytes
		t.Fatalf("%d media requests for the first message", downloads())
	}
	h.deliver(image("wamid.ONCE1")) // Meta's retry of the same payload
	h.deliver(image("wamid.ONCE2")) // another message with the same media
	if downloads() != 2 {
		t.Fatalf("%d media requests after a retry and a second message, want the first 2 only", downloads())
	}
	att := h.messageOf("wamid.ONCE2")["attachments"].([]any)[0].(map[string]any)
	if att["size"] != float64(len(photo)) || att["status"] == "failed" {
		t.Fatalf("the second message's attachment %v", att)
	}
	if n := h.count(`SELECT count(*) FROM provider_messages WHERE provider_id LIKE 'wamid.ONCE%'`); n != 2 {
		t.Fatalf("%d messages stored, want 2", n)
	}
}

// A hook given up after too many attempts is listed for the admin in
// GraphQL (failedProviderHooks) with its reason, and counted in
// msgsvc_provider_hooks_given_up_total by reason class.
func TestFailedProviderHooksAreVisible(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	before := metricstest.Scrape(t).Value("msgsvc_provider_hooks_given_up_total", map[string]string{"source": "meta", "reason": "credentials"})
	dbExec(t, h.API, `UPDATE account_providers SET sealed = 'not-sealed' WHERE account_id = 'wa_main'`)
	bad := h.postHook(waChange("messages", waValue("messages", waMessage("wamid.GIVEUP", resttest.Epoch.Unix(), "text", map[string]any{"body": "x"}))))
	if err := h.Resolver.MetaHooks.Process(t.Context(), bad); err == nil {
		t.Fatal("the first attempt went through")
	}
	list := func() []any {
		t.Helper()
		status, body := graphql(t, h.API, "admin-token", "ws_main",
			`{ failedProviderHooks(limit: 10) { id source kind receivedAt attempts lastError state givenUpAt } }`)
		data, _ := body["data"].(map[string]any)
		items, _ := data["failedProviderHooks"].([]any)
		if status != 200 || body["errors"] != nil {
			t.Fatalf("failedProviderHooks: %d %v", status, body)
		}
		return items
	}
	items := list()
	if len(items) != 1 || items[0].(map[string]any)["state"] != "retrying" || items[0].(map[string]any)["attempts"] != float64(1) {
		t.Fatalf("after one failed attempt: %v", items)
	}
	dbExec(t, h.API, `UPDATE provider_hooks SET attempts = $2 WHERE id = $1`, bad, metahook.MaxHookAttempts-1)
	if err := h.Resolver.MetaHooks.Process(t.Context(), bad); err != nil {
		t.Fatalf("the last attempt: %v", err)
	}
	got := list()[0].(map[string]any)
	if got["id"] != bad || got["source"] != "meta" || got["kind"] != "whatsapp" || got["state"] != "given_up" ||
		got["attempts"] != float64(metahook.MaxHookAttempts) || got["givenUpAt"] == nil || got["receivedAt"] == nil ||
		!strings.Contains(got["lastError"].(string), "credentials") {
		t.Fatalf("given up: %v", got)
	}
	after := metricstest.Scrape(t).Value("msgsvc_provider_hooks_given_up_total", map[string]string{"source": "meta", "reason": "credentials"})
	if after-before < 1 {
		t.Fatalf("msgsvc_provider_hooks_given_up_total{reason=credentials} went from %v to %v", before, after)
	}
	_, body := graphql(t, h.API, "admin-token", "ws_main", `{ failedProviderHooks(limit: 500) { id } }`)
	if graphqlCode(body) != "invalid_request" {
		t.Fatalf("limit 500: %v", body)
	}
}
