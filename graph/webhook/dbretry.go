package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// DefaultDBRetryWaits are the waits before each retry of a claim or a
// success record the database refused, 3.15 s in all: a refusal of a
// moment (a restart, its connections used up, a failover) is ridden out in
// the process, and the conversation's next deliveries follow as soon as it
// answers, instead of waiting for the sweep's grace (30 s) with the whole
// conversation behind them. A success record that is lost would also have
// the sweep attempt the delivery again after its lease: a duplicate at the
// endpoint. Past the waits the error goes on as before (the task's retry,
// the sweep).
var DefaultDBRetryWaits = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond,
	200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond}

func (c *Config) dbRetryWaits() []time.Duration {
	if c.DBRetryWaits != nil {
		return c.DBRetryWaits
	}
	return DefaultDBRetryWaits
}

func (c *Config) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dbRetry runs a claim or a record until it succeeds, answers not found
// (nothing to retry: the delivery is not there to claim), or the waits
// (Config.DBRetryWaits) run out; a cancelled context ends it at once. fn
// must be safe to run again after an error: a claim retries with its lease
// token, which its statement takes back if the first try took it after all
// (repo.ClaimWebhookDelivery), and a record retries under the lease it
// holds, which only it can use.
func (s *Service) dbRetry(ctx context.Context, fn func() error) error {
	cfg := s.config()
	err := fn()
	for _, wait := range cfg.dbRetryWaits() {
		if err == nil || errors.Is(err, repo.ErrNotFound) || ctx.Err() != nil {
			return err
		}
		if cfg.sleep(ctx, wait) != nil {
			return err
		}
		err = fn()
	}
	return err
}
