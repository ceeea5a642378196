package send

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// The pacer sends queued messages (queue.go) at their account's
// throughput. Every worker runs one (jobs.RunCampaigns); one of them leads
// each pace key at a time under a lease in Postgres (pacer_leases), so the
// key's budget and its customers' pair windows are kept in one place
// across processes. A leader that dies loses its lease after Lease; the
// next one reads the pair windows of the last calls from Postgres and goes
// on. A message is marked called (repo.Queries.MarkCalled) in a commit of
// its own before its call, so a new leader never calls it again: it is
// settled by the provider's status or the sending sweep.

// CampaignStore is what the pacer reads and claims; repo.Store is one.
type CampaignStore interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	QueuedPaceKeys(ctx context.Context, by time.Time, limit int) ([]string, error)
	TakePacerLease(ctx context.Context, paceKey, owner string, now, until time.Time) (bool, error)
	DropPacerLease(ctx context.Context, paceKey, owner string) error
	DueQueued(ctx context.Context, paceKey string, by time.Time, skip []string, limit int) ([]repo.QueuedSend, error)
	RecentCalls(ctx context.Context, paceKey string, since time.Time) (map[string]time.Time, error)
	MarkCalled(ctx context.Context, ids []string, owner string, now time.Time) ([]string, error)
	DeferQueued(ctx context.Context, ids []string, until time.Time) error
	HoldUntil(ctx context.Context, workspaceID, accountID, recipient string, marketing bool, now time.Time) (*time.Time, error)
}

// Campaign is a worker's pacer.
type Campaign struct {
	Sends *Service
	Store CampaignStore
	// Owner names this process in leases and claims (unique per process).
	Owner string
	Rates Rates
	// PairWindow is DefaultPairWindow when 0; Lease 6 s, Tick 20 ms.
	PairWindow, Lease, Tick time.Duration
	// Sleep waits d or until ctx ends; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error

	mu    sync.Mutex
	lanes map[string]bool
	wg    sync.WaitGroup
}

func (c *Campaign) defaults() {
	if c.PairWindow <= 0 {
		c.PairWindow = DefaultPairWindow
	}
	if c.Lease <= 0 {
		c.Lease = 6 * time.Second
	}
	if c.Tick <= 0 {
		c.Tick = 20 * time.Millisecond
	}
	if c.Sleep == nil {
		c.Sleep = timerSleep
	}
}

// Pass starts a lane for every pace key with due queued messages that this
// process can lead and does not lead yet.
func (c *Campaign) Pass(ctx context.Context) error {
	c.defaults()
	now := c.Sends.Clock.Now()
	keys, err := c.Store.QueuedPaceKeys(ctx, now, 1000)
	if err != nil {
		return err
	}
	for _, key := range keys {
		c.mu.Lock()
		running := c.lanes[key]
		c.mu.Unlock()
		if running {
			continue
		}
		ok, err := c.Store.TakePacerLease(ctx, key, c.Owner, now, now.Add(c.Lease))
		if err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		c.mu.Lock()
		if c.lanes == nil {
			c.lanes = map[string]bool{}
		}
		c.lanes[key] = true
		c.mu.Unlock()
		c.wg.Add(1)
		go c.lead(ctx, key)
	}
	return nil
}

// Wait returns once every lane has ended (ctx done, or no work left).
func (c *Campaign) Wait() { c.wg.Wait() }

// lead runs one pace key's lane while this process holds its lease.
func (c *Campaign) lead(ctx context.Context, key string) {
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		delete(c.lanes, key)
		c.mu.Unlock()
		if err := c.Store.DropPacerLease(context.WithoutCancel(ctx), key, c.Owner); err != nil {
			slog.Warn("campaign: lease not dropped; it runs out", "pace_key", key, "err", err)
		}
	}()
	if err := c.runLane(ctx, key); err != nil && ctx.Err() == nil {
		slog.Warn("campaign: lane stopped", "pace_key", key, "err", err)
	}
}

// done is one finished call, for the lane's rules.
type done struct {
	claim repo.QueuedSend
	out   QueuedOutcome
}

func (c *Campaign) runLane(ctx context.Context, key string) error {
	clk := c.Sends.Clock
	start := clk.Now()
	recent, err := c.Store.RecentCalls(ctx, key, start.Add(-c.PairWindow))
	if err != nil {
		return err
	}
	var l *lane
	results := make(chan done, 1024)
	inflight := 0
	var sem chan struct{}
	var creds credsCache
	renewed, fetched, busy := start, time.Time{}, start
	defer func() {
		for ; inflight > 0; inflight-- {
			<-results
		}
	}()
	for ctx.Err() == nil {
		now := clk.Now()
		if now.Sub(renewed) >= c.Lease/3 {
			ok, err := c.Store.TakePacerLease(ctx, key, c.Owner, now, now.Add(c.Lease))
			if err != nil || !ok {
				return err // lost: another process leads the key now
			}
			renewed = now
		}
		if l == nil || (len(l.buf) < l.rate && now.Sub(fetched) >= 10*c.Tick) {
			if l, err = c.fill(ctx, key, l, recent, now); err != nil {
				return err
			}
			fetched = now
		}
		if len(l.buf) > 0 || inflight > 0 {
			busy = now
		} else if now.Sub(busy) > 2*time.Second {
			return nil
		}
		if sem == nil {
			// Calls in flight: the rate times a provider answer and the
			// settle's time, with room for a slow database.
			sem = make(chan struct{}, max(64, 4*l.rate))
		}
		if err := c.dispatch(ctx, l, now, sem, results, &inflight, &creds); err != nil {
			return err
		}
	drain:
		for {
			select {
			case d := <-results:
				inflight--
				l.apply(d.claim, d.out, clk.Now())
			default:
				break drain
			}
		}
		l.prune(now)
		// A slow pass (the database) shortens the sleep, so picks keep
		// their tick.
		if err := c.Sleep(ctx, max(c.Tick-clk.Now().Sub(now), c.Tick/4)); err != nil {
			return nil
		}
	}
	return nil
}

// fill reads due queued messages into the lane (made on the first read,
// with its rate), and the account's hold of a synchronous send's 130429.
func (c *Campaign) fill(ctx context.Context, key string, l *lane, recent map[string]time.Time, now time.Time) (*lane, error) {
	skip := []string(nil)
	limit := 2 * WhatsAppRate
	if l != nil {
		skip, limit = l.buffered(), max(2*l.rate, limit)
	}
	due, err := c.Store.DueQueued(ctx, key, now, skip, limit)
	if err != nil || len(due) == 0 {
		if l == nil && err == nil {
			l = newLane(0, c.PairWindow, c.Tick)
			l.last = recent
		}
		return l, err
	}
	if l == nil {
		l = newLane(c.Rates.of(ctx, c.Sends, due[0]), c.PairWindow, c.Tick)
		l.last = recent
	}
	l.buf = append(l.buf, due...)
	until, err := c.Store.HoldUntil(ctx, due[0].WorkspaceID, due[0].AccountID, "", false, now)
	if err == nil && until != nil && until.After(l.pausedUntil) {
		l.pausedUntil = *until
	}
	return l, err
}
