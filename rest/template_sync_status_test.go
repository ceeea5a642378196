package rest_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
)

// A template sync shows on the number in GET /v1/channels (template_sync:
// {status, error, at}) and counts in msgsvc_template_syncs_total; a failed
// one names Meta's code and text (here a 190, which also makes the number
// needs_reauth), never the token.
func TestTemplateSyncShowsOnTheNumber(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.SetTemplates(hookWABA, metatest.Template("order_update", "en_US", "APPROVED", "UTILITY", "Order {{1}} shipped"))
	number := func() map[string]any {
		t.Helper()
		for _, n := range h.Want(h.Do("GET", "/v1/channels", "live_all", nil), 200, "").Data()["whatsapp"].([]any) {
			if n.(map[string]any)["id"] == "wa_main" {
				return n.(map[string]any)
			}
		}
		t.Fatal("no wa_main in GET /v1/channels")
		return nil
	}
	syncs := func(outcome string) float64 {
		return metricstest.Scrape(t).Value("msgsvc_template_syncs_total", map[string]string{"outcome": outcome})
	}
	if number()["template_sync"] != nil {
		t.Fatalf("before any sync: %v", number())
	}
	ok, unavailable := syncs("ok"), syncs("channel_unavailable")
	if err := h.Resolver.MetaHooks.SyncTemplates(t.Context(), "ws_main", "wa_main"); err != nil {
		t.Fatal(err)
	}
	if s, _ := number()["template_sync"].(map[string]any); s["status"] != "ok" || s["error"] != nil || s["at"] == nil {
		t.Fatalf("after a sync: %v", number())
	}
	h.graph.Queue(metatest.Script{Method: "GET", PathSuffix: "/message_templates", Status: 401,
		Body: metatest.ErrorBody(190, 463, "Error validating access token: Session has expired")})
	if err := h.Resolver.MetaHooks.SyncTemplates(t.Context(), "ws_main", "wa_main"); err != nil {
		t.Fatal(err)
	}
	n := number()
	s, _ := n["template_sync"].(map[string]any)
	if s["status"] != "failed" || s["error"] != "190/463: Error validating access token: Session has expired" || n["status"] != "needs_reauth" ||
		strings.Contains(s["error"].(string), hookToken) {
		t.Fatalf("after a failed sync: %v", n)
	}
	if syncs("ok")-ok < 1 || syncs("channel_unavailable")-unavailable < 1 {
		t.Fatalf("msgsvc_template_syncs_total ok %v→%v, channel_unavailable %v→%v", ok, syncs("ok"), unavailable, syncs("channel_unavailable"))
	}
}
