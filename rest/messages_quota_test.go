package rest_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// 50 concurrent live sends against a limit of 20: exactly 20 go out.
func TestQuotaExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	liveAdapters(api)
	dbExec(t, api, `UPDATE workspaces SET messages_limit = 20, rate_per_second = 1000, rate_per_minute = 100000 WHERE id = 'ws_main'`)
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sendMsg(api, "live_all", map[string]any{"channel": "whatsapp", "to": fmt.Sprintf("+1555020%04d", i),
				"whatsapp_account_id": "wa_main", "template": tpl("order_update", "Q")})
			mu.Lock()
			got[fmt.Sprint(r.Status, r.Code())]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if got["201"] != 20 || got["429api_quota_exceeded"] != 30 || len(got) != 2 {
		t.Errorf("outcomes %v, want 20 sent and 30 api_quota_exceeded", got)
	}
	if used := usedMessages(api, "live_all"); used != 20 {
		t.Errorf("usage %v, want 20", used)
	}
	var live int
	if err := api.Store.DB.Get(&live, `SELECT count(*) FROM messages WHERE livemode AND direction = 'outbound'`); err != nil || live != 20 {
		t.Errorf("%d live messages stored (%v)", live, err)
	}
	// Sandbox sends use no quota, even when the live one is used up.
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "sandbox"}), 201, "")
	if used := usedMessages(api, "test_all"); used != 0 {
		t.Errorf("sandbox usage %v", used)
	}
}

func TestQuotaCountsAcceptedSendsOnlyAndResets(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	dbExec(t, api, `UPDATE workspaces SET messages_limit = 1 WHERE id = 'ws_main'`)
	reply := map[string]any{"conversation_id": "conv_live", "text": "hello"}
	// No live adapter yet: refused honestly, nothing counted.
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")
	// A provider refusal maps to its code and gives the message back.
	connectProviders(api)
	api.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"whatsapp": refusingAdapter{code: apierr.RecipientOptedOut}}
	})
	api.Want(sendMsg(api, "live_all", reply), 422, "recipient_opted_out")
	if used := usedMessages(api, "live_all"); used != 0 {
		t.Fatalf("refused sends counted %v", used)
	}
	liveAdapters(api)
	api.Want(sendMsg(api, "live_all", reply), 201, "")
	api.Want(sendMsg(api, "live_all", reply), 429, "api_quota_exceeded")
	// Channel rules answer before the quota.
	api.Want(sendMsg(api, "live_all", map[string]any{"conversation_id": "conv_live"}), 400, "text_required")
	api.Clock.Set(time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC))
	api.Want(sendMsg(api, "live_all", reply), 422, "window_closed")
	usage := api.Want(api.Do("GET", "/v1/usage", "live_all", nil), 200, "").Data()
	if usage["messages_used"] != float64(1) || usage["resets_at"] != "2026-11-01T00:00:00.000Z" {
		t.Errorf("usage %v", usage)
	}
	// The 1st of the month starts afresh.
	api.Clock.Set(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if used := usedMessages(api, "live_all"); used != 0 {
		t.Errorf("usage on the 1st %v", used)
	}
	api.Want(sendMsg(api, "live_all", map[string]any{"channel": "whatsapp", "to": "+15550301234",
		"whatsapp_account_id": "wa_main", "template": tpl("order_update", "N")}), 201, "")
	if used := usedMessages(api, "live_all"); used != 1 {
		t.Errorf("usage after a November send %v", used)
	}
}
