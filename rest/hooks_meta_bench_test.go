package rest_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkStatusHooks applies Meta status hooks of b.N messages, one hook
// each and each to another customer, with 16 hook jobs at once (a worker's
// slots): statuses of different customers apply in parallel. It reports
// statuses applied a second. Run with a fixed count, e.g.
// go test -run '^$' -bench StatusHooks -benchtime 4000x ./rest/
func BenchmarkStatusHooks(b *testing.B) {
	h := newMetaHooks(b)
	dbExec(b, h.API, `UPDATE workspaces SET messages_limit = 1000000`)
	wamids := make([]string, b.N)
	for i := range b.N {
		phone := fmt.Sprintf("+1555%07d", 1000000+i)
		msg := h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": phone,
			"whatsapp_account_id": "wa_main", "template": tpl("order_update", "B")}), 201, "").Data()
		wamids[i] = msg["delivery"].(map[string]any)["provider_message_id"].(string)
	}
	hooks := make(chan string, b.N)
	at := resttest.Epoch.Unix() + 60
	for i, wamid := range wamids {
		st := waStatus(wamid, "delivered", at)
		st["recipient_id"] = fmt.Sprintf("1555%07d", 1000000+i)
		hooks <- h.postHook(waChange("messages", waValue("statuses", st)))
	}
	close(hooks)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for id := range hooks {
				if err := h.Resolver.MetaHooks.Process(b.Context(), id); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "statuses/s")
	if n := h.count(`SELECT count(*) FROM messages WHERE livemode AND status = 'delivered'`); n != b.N {
		b.Fatalf("%d messages delivered, want %d", n, b.N)
	}
}
