package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// A 130429 from Meta holds the whole number back for its Retry-After: every
// recipient answers 429 channel_rate_limited without a provider call until
// the injected clock passes it (live.md 4).
func TestWhatsAppThroughputLimitHoldsTheNumber(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.Queue(metatest.Script{PathSuffix: "/messages", Status: 429, Header: http.Header{"Retry-After": {"7"}},
		Body: metatest.ErrorBody(130429, 0, "(#130429) Rate limit hit")})
	to := func(phone string) map[string]any {
		return map[string]any{"channel": "whatsapp", "to": phone, "whatsapp_account_id": "wa_main", "template": tpl("order_update", "A-1")}
	}
	sends := func() int {
		return len(h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") }))
	}
	r := h.Want(sendMsg(h.API, "live_all", to("+15550401111")), 429, "channel_rate_limited")
	if r.Header.Get("Retry-After") != "7" || sends() != 1 {
		t.Fatalf("Retry-After %q after %d calls", r.Header.Get("Retry-After"), sends())
	}
	h.Clock.Advance(3 * time.Second)
	r = h.Want(sendMsg(h.API, "live_all", to("+15550402222")), 429, "channel_rate_limited")
	if r.Header.Get("Retry-After") != "4" || sends() != 1 {
		t.Errorf("another recipient during the hold: Retry-After %q, %d calls", r.Header.Get("Retry-After"), sends())
	}
	h.Clock.Advance(5 * time.Second)
	h.Want(sendMsg(h.API, "live_all", to("+15550402222")), 201, "")
	if sends() != 2 {
		t.Errorf("%d calls, want 2", sends())
	}
}
