package send_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
)

// campaignFixture is the fixture with live WhatsApp on wa_main (number
// pn_main), its templates live, a provider the test scripts and a clock
// that the pacer's sleeps move.
type campaignFixture struct {
	*fixture
	now      atomic.Int64 // unix nanos
	provider *scripted
}

func newCampaignFixture(t *testing.T) *campaignFixture {
	t.Helper()
	f := &campaignFixture{fixture: seeded(t)}
	f.now.Store(epoch.UnixNano())
	clk := clock.Clock(func() time.Time { return time.Unix(0, f.now.Load()).UTC() })
	f.provider = &scripted{clock: clk, calls: map[string][]time.Time{}}
	f.svc.Clock, f.svc.Events = clk, event.Recorder{Clock: clk}
	f.svc.Adapters = map[string]channels.Adapter{"whatsapp": f.provider}
	f.svc.Credentials = vault{"wa_main": {AccessToken: "token-wa_main", PhoneNumberID: "pn_main"}}
	f.exec(t, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode`)
	return f
}

func (f *campaignFixture) advance(d time.Duration) { f.now.Add(int64(d)) }

// pacer is a worker's pacer over the fixture whose ticks move the clock.
func (f *campaignFixture) pacer(owner string, rate int, window time.Duration) *send.Campaign {
	return &send.Campaign{Sends: f.svc, Store: f.store, Owner: owner, Rates: send.Rates{WhatsApp: rate},
		PairWindow: window, Lease: 10 * time.Second,
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.advance(d)
			time.Sleep(time.Millisecond) // let the calls in flight run
			return ctx.Err()
		}}
}

// queue sends a template asynchronously to a WhatsApp number.
func (f *campaignFixture) queue(t *testing.T, to, template string) *model.Message {
	t.Helper()
	in := model.SendMessageInput{Channel: ptr("whatsapp"), To: &to, WhatsappAccountID: ptr("wa_main"), Template: tpl(template, "N")}
	msg, err := f.svc.Send(liveKey, send.Request{Input: in, Async: true})
	if err != nil {
		t.Fatalf("queue to %s: %v", to, err)
	}
	return msg
}

func (f *campaignFixture) status(t *testing.T, id string) string {
	t.Helper()
	var s string
	if err := f.store.DB.Get(&s, `SELECT status FROM messages WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return s
}

// scripted is a provider that answers refusals queued per recipient, and
// accepts otherwise; it keeps when each recipient was called.
type scripted struct {
	clock   clock.Clock
	mu      sync.Mutex
	calls   map[string][]time.Time
	ids     map[string]int
	refuse  map[string][]*channels.Refusal
	refused int
}

func (p *scripted) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]int{}
	}
	p.calls[m.To] = append(p.calls[m.To], p.clock.Now())
	p.ids[m.ID]++
	if rs := p.refuse[m.To]; len(rs) > 0 {
		p.refuse[m.To] = rs[1:]
		p.refused++
		return nil, rs[0]
	}
	return &channels.Receipt{ProviderIDs: []string{"wamid." + m.ID}}, nil
}

func (p *scripted) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.calls {
		n += len(c)
	}
	return n
}

// run runs one pacer until every lane it started has ended.
func run(t *testing.T, c *send.Campaign) {
	t.Helper()
	if err := c.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
}

// A queued send answers at once without calling the provider: the message
// queued, its quota unit taken, its claim stored under the number at Meta.
// The pacer sends every queued message once, spreading each customer's
// messages at least a pair window apart, and confirms them as synchronous
// sends are (sent, message.sent).
func TestQueuedMessagesAreSentOnceOutsideThePairWindow(t *testing.T) {
	t.Parallel()
	f := newCampaignFixture(t)
	var ids []string
	for round := range 3 {
		for c := range 4 {
			m := f.queue(t, fmt.Sprintf("+1555040%04d", c), "order_update")
			if m.Status != "queued" {
				t.Fatalf("round %d: queued send answered %q", round, m.Status)
			}
			ids = append(ids, m.ID)
		}
	}
	if n := f.provider.total(); n != 0 {
		t.Fatalf("%d provider calls before the pacer ran", n)
	}
	if n := f.count(t, `SELECT count(*) FROM queued_sends WHERE pace_key = 'whatsapp:pn_main' AND state = 'queued'`); n != 12 {
		t.Fatalf("%d queued claims on whatsapp:pn_main, want 12", n)
	}
	window := 2 * time.Second
	for range 10 {
		run(t, f.pacer("worker-a", 80, window))
		if f.provider.total() == 12 {
			break
		}
		f.advance(window)
	}
	for _, id := range ids {
		if s := f.status(t, id); s != "sent" {
			t.Errorf("message %s is %s, want sent", id, s)
		}
		if n := f.provider.ids[id]; n != 1 {
			t.Errorf("message %s called %d times", id, n)
		}
	}
	for to, at := range f.provider.calls {
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < window {
				t.Errorf("%s got two messages %s apart, within the pair window", to, gap)
			}
		}
	}
	if n := f.count(t, `SELECT count(*) FROM events WHERE type = 'message.sent'`); n != 12 {
		t.Errorf("%d message.sent events, want 12", n)
	}
	if n := f.count(t, `SELECT coalesce(sum(used), 0) FROM usage_shards WHERE workspace_id = 'ws_main' AND livemode`); n != 12 {
		t.Errorf("quota used %d, want 12", n)
	}
}

// A rate limit on the number (130429) backs the whole number off for its
// Retry-After and the message goes out after it; a 131049 fails that
// customer's marketing message and holds her marketing only; any other
// refusal fails the message with message.status, its quota given back.
func TestQueuedRefusals(t *testing.T) {
	t.Parallel()
	f := newCampaignFixture(t)
	f.provider.refuse = map[string][]*channels.Refusal{
		"+15550500001": {{Code: apierr.ChannelRateLimited, Reason: "130429: Rate limit hit", RetryAfter: 5 * time.Second, Hold: channels.HoldAccount}},
		"+15550500002": {{Code: apierr.ChannelRateLimited, Reason: "131049: healthy ecosystem", RetryAfter: time.Hour, Hold: channels.HoldMarketing}},
		"+15550500003": {{Code: apierr.InvalidRequest, Reason: "131009: Parameter value is not valid"}},
	}
	limited := f.queue(t, "+15550500001", "order_update")
	marketing := f.queue(t, "+15550500002", "spring_sale")
	again := f.queue(t, "+15550500002", "spring_sale")
	utility := f.queue(t, "+15550500002", "order_update")
	invalid := f.queue(t, "+15550500003", "order_update")
	start := time.Unix(0, f.now.Load())
	for range 20 {
		run(t, f.pacer("worker-a", 80, time.Second))
		f.advance(time.Second)
	}
	if s := f.status(t, limited.ID); s != "sent" {
		t.Errorf("the 130429 message is %s, want sent after the backoff", s)
	}
	if at := f.provider.calls["+15550500001"]; len(at) != 2 || at[1].Sub(at[0]) < 5*time.Second {
		t.Errorf("the 130429 message was called at %v, want twice, 5 s apart (from %v)", at, start)
	}
	if s := f.status(t, marketing.ID); s != "failed" {
		t.Errorf("the 131049 message is %s, want failed", s)
	}
	if s := f.status(t, again.ID); s != "queued" {
		t.Errorf("the customer's next marketing message is %s, want held queued", s)
	}
	if s := f.status(t, utility.ID); s != "sent" {
		t.Errorf("the customer's utility message is %s, want sent", s)
	}
	if s := f.status(t, invalid.ID); s != "failed" {
		t.Errorf("the refused message is %s, want failed", s)
	}
	var code string
	if err := f.store.DB.Get(&code, `SELECT delivery->'error'->>'code' FROM messages WHERE id = $1`, invalid.ID); err != nil || code != "invalid_request" {
		t.Errorf("delivery.error.code %q (%v), want invalid_request", code, err)
	}
	if n := f.count(t, `SELECT count(*) FROM events WHERE type = 'message.status' AND envelope->'data'->>'id' = ANY($1)`,
		repoArray(marketing.ID, invalid.ID)); n != 2 {
		t.Errorf("%d message.status events for the failed messages, want 2", n)
	}
	// 5 reserved; two failed gave theirs back; one is still queued.
	if n := f.count(t, `SELECT coalesce(sum(used), 0) FROM usage_shards WHERE workspace_id = 'ws_main' AND livemode`); n != 3 {
		t.Errorf("quota used %d, want 3", n)
	}
}

// A worker that marked a message called and died (kill -9) after the
// provider took it: once its lease runs out another worker leads the
// number and never calls the message again; the sweep settles it as
// provider_unknown unless the provider's status does first.
func TestCrashedPacerNeverCallsTwice(t *testing.T) {
	t.Parallel()
	f := newCampaignFixture(t)
	m := f.queue(t, "+15550600001", "order_update")
	next := f.queue(t, "+15550600002", "order_update")
	now := time.Unix(0, f.now.Load())
	if ok, err := f.store.TakePacerLease(t.Context(), "whatsapp:pn_main", "dead-worker", now, now.Add(10*time.Second)); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	moved, err := f.store.MarkCalled(t.Context(), []string{m.ID}, "dead-worker", now)
	if err != nil || len(moved) != 1 {
		t.Fatalf("mark called: %v %v", moved, err)
	}
	if _, err := f.provider.Send(t.Context(), &channels.Message{ID: m.ID, To: "+15550600001"}); err != nil {
		t.Fatal(err) // the dead worker's call: the provider took it
	}
	run(t, f.pacer("worker-b", 80, time.Second))
	if n := f.provider.total(); n != 1 {
		t.Fatalf("%d provider calls while the dead worker's lease ran, want 1", n)
	}
	f.advance(11 * time.Second)
	run(t, f.pacer("worker-b", 80, time.Second))
	if n := f.provider.ids[m.ID]; n != 1 {
		t.Fatalf("the called message was called %d times, want once", n)
	}
	if s := f.status(t, next.ID); s != "sent" {
		t.Fatalf("the next message is %s after the new leader ran, want sent", s)
	}
	if s := f.status(t, m.ID); s != "sending" {
		t.Fatalf("the called message is %s, want sending until a status or the sweep", s)
	}
	f.advance(send.DefaultUnknownAfter)
	if err := f.svc.SweepSending(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := f.status(t, m.ID); s != "failed" {
		t.Fatalf("after the sweep the called message is %s, want failed (provider_unknown)", s)
	}
}

func repoArray(s ...string) any { return pq.StringArray(s) }

// dyingStore is a worker's store that dies (kill -9) when the pacer would
// mark messages called: every message it opened is left as it was.
type dyingStore struct {
	send.CampaignStore
	marks atomic.Int32
}

func (d *dyingStore) MarkCalled(context.Context, []string, string, time.Time) ([]string, error) {
	d.marks.Add(1)
	return nil, context.Canceled
}

// A worker killed after it opened a pass's messages and before it marked
// them called has called nothing and claimed nothing: the next leader,
// once the lease runs out, sends each of them, once.
func TestPacerKilledBeforeTheMarkLosesNothing(t *testing.T) {
	t.Parallel()
	f := newCampaignFixture(t)
	a := f.queue(t, "+15550700001", "order_update")
	b := f.queue(t, "+15550700002", "order_update")
	dead := f.pacer("dead-worker", 80, time.Second)
	dying := &dyingStore{CampaignStore: f.store}
	dead.Store = dying
	if err := dead.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	dead.Wait()
	if dying.marks.Load() == 0 || f.provider.total() != 0 {
		t.Fatalf("the dying worker reached the mark %d times and made %d calls; want at least once and none",
			dying.marks.Load(), f.provider.total())
	}
	for _, m := range []*model.Message{a, b} {
		if s := f.status(t, m.ID); s != "queued" {
			t.Fatalf("after the dying pass %s is %s, want queued", m.ID, s)
		}
	}
	f.advance(11 * time.Second) // the dead worker's lease runs out
	run(t, f.pacer("worker-b", 80, time.Second))
	for _, m := range []*model.Message{a, b} {
		if s := f.status(t, m.ID); s != "sent" || f.provider.ids[m.ID] != 1 {
			t.Errorf("%s is %s after the new leader, called %d times; want sent, once", m.ID, s, f.provider.ids[m.ID])
		}
	}
}
