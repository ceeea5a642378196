package rest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A 130429 from Meta holds the whole number back for its Retry-After: every
// recipient answers 429 channel_rate_limited without a provider call until
// the injected clock passes it.
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

// The pacer runs in the live pipeline: a send whose slot on its number is
// too far away answers 429 channel_rate_limited before any call, keeps no
// message and counts no quota.
func TestWhatsAppBurstIsPaced(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	var mu sync.Mutex
	var waits []time.Duration
	h.Reconfigure(func(c *resttest.Config) {
		c.Pacer = &send.Pacer{Rate: 1, MaxWait: time.Second, Clock: h.Clock.Now,
			Sleep: func(_ context.Context, d time.Duration) error {
				mu.Lock()
				defer mu.Unlock()
				waits = append(waits, d)
				return nil
			}}
	})
	before := usedMessages(h.API, "live_all")
	h.Want(h.liveSend(map[string]any{"text": "one"}), 201, "")
	h.Want(h.liveSend(map[string]any{"text": "two"}), 201, "")
	r := h.Want(h.liveSend(map[string]any{"text": "three"}), 429, "channel_rate_limited")
	if r.Header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After %q, want 2", r.Header.Get("Retry-After"))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) != 1 || waits[0] != time.Second {
		t.Errorf("waits %v, want the second send to wait 1s", waits)
	}
	if n := len(h.graph.Requests(nil)); n != 2 {
		t.Errorf("%d provider calls, want 2", n)
	}
	if used := usedMessages(h.API, "live_all"); used != before+2 {
		t.Errorf("quota used %v, want %v", used, before+2)
	}
	if n := h.count(`SELECT count(*) FROM messages WHERE text = 'three'`); n != 0 {
		t.Errorf("the refused send left %d messages", n)
	}
}
