package rest_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// slowAdapter accepts once release is closed, counting calls and the most
// running at once.
type slowAdapter struct {
	calls, now    atomic.Int32
	mostAtOnce    atomic.Int32
	release       chan struct{}
	gotCredential atomic.Value
}

func (a *slowAdapter) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	a.calls.Add(1)
	n := a.now.Add(1)
	defer a.now.Add(-1)
	for {
		most := a.mostAtOnce.Load()
		if n <= most || a.mostAtOnce.CompareAndSwap(most, n) {
			break
		}
	}
	if m.Account.Provider != nil {
		a.gotCredential.Store(m.Account.Provider.AccessToken)
	}
	select {
	case <-a.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &channels.Receipt{ProviderIDs: []string{"wamid." + m.ID, "wamid." + m.ID + ".2"}}, nil
}

// Eight live sends on eight conversations of one workspace and one number
// are all inside the provider call at once: no transaction or lock is held
// across it. The stand-in provider answers none until all eight have
// called, so sends that waited on each other would never get there; the
// test counts calls in flight, it does not time them.
func TestLiveSendsHoldNoLockAcrossTheProviderCall(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	connectProviders(api)
	dbExec(t, api, `UPDATE workspaces SET rate_per_second = 1000, rate_per_minute = 100000 WHERE id = 'ws_main'`)
	slow := &slowAdapter{release: make(chan struct{})}
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": slow} })
	go func() {
		// Released when all eight are in the call, or, should they never
		// all be, when the test gives up on it (the failure below).
		deadline := time.After(time.Minute)
		for slow.now.Load() < 8 {
			select {
			case <-deadline:
				close(slow.release)
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		close(slow.release)
	}()
	var wg sync.WaitGroup
	results := make([]*resttest.Response, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = sendMsg(api, "live_all", map[string]any{"channel": "whatsapp", "to": fmt.Sprintf("+1555040%04d", i),
				"whatsapp_account_id": "wa_main", "template": tpl("order_update", "8")})
		}()
	}
	wg.Wait()
	for i, r := range results {
		api.Want(r, 201, "")
		d := r.Data()
		if d["status"] != "sent" || d["delivery"].(map[string]any)["provider_message_id"] != "wamid."+d["id"].(string) {
			t.Errorf("send %d: %v", i, d)
		}
	}
	if most := slow.mostAtOnce.Load(); most != 8 {
		t.Errorf("at most %d of 8 sends were in the provider call at once: something held across the call serialises them", most)
	}
	if tok, _ := slow.gotCredential.Load().(string); tok != "token-wa_main" {
		t.Errorf("the adapter got access token %q, want the account's unsealed token", tok)
	}
	var parts int
	if err := api.Store.DB.Get(&parts, `SELECT count(*) FROM provider_messages WHERE channel = 'whatsapp'`); err != nil || parts != 16 {
		t.Errorf("%d provider ids stored (%v), want 2 per message", parts, err)
	}
}

// A provider refusal releases the reservation: no message, no quota, and
// the refusal's consequences for the account.
func TestLiveRefusalReleasesAndActs(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	connectProviders(api)
	reply := map[string]any{"conversation_id": "conv_live", "text": "hello"}
	count := func(query string) (n int) {
		t.Helper()
		if err := api.Store.DB.Get(&n, query); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count(`SELECT count(*) FROM messages WHERE conversation_id = 'conv_live'`)

	// 131056: that recipient is held back for Retry-After, others are not.
	calls := &countingRefuser{refusal: channels.Refusal{Code: apierr.ChannelRateLimited, Reason: "131056: pair rate limit",
		RetryAfter: 30 * time.Second, Hold: channels.HoldRecipient}}
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": calls} })
	r := api.Want(sendMsg(api, "live_all", reply), 429, "channel_rate_limited")
	if r.Header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After %q, want 30", r.Header.Get("Retry-After"))
	}
	r = api.Want(sendMsg(api, "live_all", reply), 429, "channel_rate_limited")
	if calls.n.Load() != 1 || r.Header.Get("Retry-After") != "30" {
		t.Errorf("a held recipient reached the provider (%d calls) or lost its Retry-After %q", calls.n.Load(), r.Header.Get("Retry-After"))
	}
	api.Want(sendMsg(api, "live_all", map[string]any{"channel": "whatsapp", "to": "+15550409999",
		"whatsapp_account_id": "wa_main", "template": tpl("order_update", "x")}), 429, "channel_rate_limited")
	if calls.n.Load() != 2 {
		t.Errorf("another recipient was held back too (%d calls)", calls.n.Load())
	}
	api.Clock.Advance(31 * time.Second)

	// Meta 190: the account needs reauth and refuses sends without a call.
	calls.refusal = channels.Refusal{Code: apierr.ChannelUnavailable, Reason: "190: token expired", NeedsReauth: true}
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")
	if calls.n.Load() != 3 {
		t.Errorf("%d provider calls, want 3: the needs_reauth account was called again", calls.n.Load())
	}
	if count(`SELECT count(*) FROM channel_accounts WHERE id = 'wa_main' AND status = 'needs_reauth'`) != 1 {
		t.Error("wa_main is not needs_reauth after a 190")
	}
	if n := count(`SELECT count(*) FROM messages WHERE conversation_id = 'conv_live'`); n != before {
		t.Errorf("refused sends left %d messages", n-before)
	}
	if used := usedMessages(api, "live_all"); used != 0 {
		t.Errorf("refused sends counted %v", used)
	}
	if n := count(`SELECT message_count FROM conversations WHERE id = 'conv_live'`); n != before {
		t.Errorf("message_count %d, want %d", n, before)
	}
}

type countingRefuser struct {
	refusal channels.Refusal
	n       atomic.Int32
}

func (c *countingRefuser) Send(context.Context, *channels.Message) (*channels.Receipt, error) {
	c.n.Add(1)
	r := c.refusal
	return nil, &r
}

// A message whose process died between reserve and confirm is given up as
// provider_unknown by the sweep, and never sent again; a provider answer
// that still comes (the process only stalled) settles it as sent.
func TestSweepGivesUpUnsettledSends(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	connectProviders(api)
	stuck := &slowAdapter{release: make(chan struct{})}
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": stuck} })
	done := make(chan *resttest.Response)
	go func() {
		done <- sendMsg(api, "live_all", map[string]any{"conversation_id": "conv_live", "text": "lost"})
	}()
	var id string
	for range 200 {
		if err := api.Store.DB.Get(&id, `SELECT id FROM messages WHERE status = 'sending'`); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("no message was reserved as sending")
	}
	if err := api.Resolver.Sends.SweepSending(t.Context()); err != nil {
		t.Fatal(err)
	}
	var status string
	if err := api.Store.DB.Get(&status, `SELECT status FROM messages WHERE id = $1`, id); err != nil || status != "sending" {
		t.Errorf("swept within the grace: %q %v", status, err)
	}
	api.Clock.Advance(20 * time.Minute)
	if err := api.Resolver.Sends.SweepSending(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := api.Want(api.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
	delivery, _ := got["delivery"].(map[string]any)
	if got["status"] != "failed" || delivery == nil || delivery["error"].(map[string]any)["code"] != "provider_unknown" {
		t.Errorf("after the sweep: %v", got)
	}
	found := false
	for _, e := range api.Events("ws_main") {
		found = found || e.Type == "message.status"
	}
	if !found {
		t.Error("no message.status for the given-up message")
	}
	// The provider's late answer settles it (docs/whatsapp.md): the
	// provider took the message, so it is sent, not sent again.
	close(stuck.release)
	api.Want(<-done, 201, "")
	if err := api.Store.DB.Get(&status, `SELECT status FROM messages WHERE id = $1`, id); err != nil || status != "sent" {
		t.Errorf("after the provider's late answer: %q %v, want sent", status, err)
	}
	if n := stuck.calls.Load(); n != 1 {
		t.Errorf("%d provider calls, want 1", n)
	}
}
