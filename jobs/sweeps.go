package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// SendingSweeper gives up live sends a dead process left between reserve
// and confirm.
type SendingSweeper interface {
	SweepSending(ctx context.Context) error
}

// IdempotencyPurger deletes Idempotency-Key records made before a time;
// repo.Store is one.
type IdempotencyPurger interface {
	PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)
}

// PurgeIdempotencyKeys deletes the Idempotency-Key records past the time
// they are remembered (repo.IdempotencyTTL) at now.
func PurgeIdempotencyKeys(ctx context.Context, p IdempotencyPurger, now time.Time) error {
	_, err := p.PurgeIdempotencyKeys(ctx, now.Add(-repo.IdempotencyTTL))
	return err
}

// ArchiveCleaner deletes the tasks asynq archived; Client is one.
type ArchiveCleaner interface {
	DeleteArchived(ctx context.Context) error
}

// Sweeps is the periodic work that catches up what a lost task or a crash
// left behind, and deletes what has expired.
type Sweeps struct {
	Webhooks    Webhooks
	Idempotency IdempotencyPurger
	// Clock is the time the purges go by; nil is the wall clock.
	Clock func() time.Time
	// Archive, when set, drops archived tasks with the purges.
	Archive ArchiveCleaner
	// Queues, when set, lists the queues in asynq's set again every pass.
	Queues QueueRegistrar
	// Sending is nil when nothing sends live (some tests).
	Sending SendingSweeper
	// MetaHooks is nil when no Meta webhooks are processed (some tests).
	MetaHooks MetaHookSweeper
	// Notices is nil when no owner notices are sent (some tests).
	Notices NoticeSender
	// Queue, when set, names the Redis server the queue is on (its run
	// id and role, redisconn.Describe). When the name changes (a
	// failover promoted another server, a restart may have lost the
	// queue, the server became a replica or stopped being one),
	// Resweep runs at once, not after the sweep's grace.
	Queue func(ctx context.Context) (string, error)
	// HandOverFailed, when set, reports (and forgets) whether a
	// delivery's task could not be enqueued since it was last asked
	// (jobs.Client.HandOverFailed): then, once the queue answers, Resweep
	// runs too. A failover's resweep whose own enqueues failed (the
	// queue's clients still on the old server) is so run again.
	HandOverFailed func() bool
	// Resweep hands every due webhook delivery a task at once
	// (webhook.Service.ResweepDeliveries).
	Resweep func(ctx context.Context) error
	// RequestLogs purges the /v1 request log past the retention period
	// (requestlog.Service); nil keeps it.
	RequestLogs interface {
		PurgeExpired(ctx context.Context) error
	}
}

// queueWatch notices a change of the server the queue is on.
type queueWatch struct {
	name func(ctx context.Context) (string, error)
	last string
}

// check asks the server's name and says whether it differs from the
// last one known (never for the first, nor while it cannot be asked), and
// whether it answered (always, with no name to ask).
func (w *queueWatch) check(ctx context.Context) (changed, answered bool) {
	if w.name == nil {
		return false, true
	}
	name, err := w.name(ctx)
	if err != nil {
		return false, false
	}
	changed = w.last != "" && name != w.last
	w.last = name
	return changed, true
}

// resweep says why every due delivery needs a task again now ("" for no
// reason): the queue's server changed, or a hand-over failed and the queue
// answers again.
func (s Sweeps) resweep(ctx context.Context, w *queueWatch) string {
	changed, answered := w.check(ctx)
	switch {
	case s.Resweep == nil || !answered:
		return ""
	case changed:
		return "the job queue's Redis server changed"
	case s.HandOverFailed != nil && s.HandOverFailed():
		return "a webhook delivery's task could not be enqueued"
	}
	return ""
}

// NoticeSender sends the owner notices that are due through the mail relay
// (retried until accepted); mail.Notices is one.
type NoticeSender interface {
	SendNotices(ctx context.Context) error
}

// QueueRegistrar lists the queues in asynq's set of queues; Client is one.
type QueueRegistrar interface {
	RegisterQueues(ctx context.Context) error
}

// MetaHookSweeper processes stored Meta webhooks whose task was lost.
type MetaHookSweeper interface {
	SweepHooks(ctx context.Context) error
}

// purgeEvery is how often expired records are deleted.
const purgeEvery = time.Minute

// RunSweeps does the periodic work until ctx ends: webhook fan-out and the
// delivery sweep every interval, so nothing waits on a lost task for long,
// and the purges every minute. Several workers may run it at once: each step
// is safe to run twice. (The sandbox's delivered step has a loop of its own,
// RunSandboxDeliveries, with nothing to sweep.)
func RunSweeps(ctx context.Context, s Sweeps, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var lastPurge time.Time
	queue := &queueWatch{name: s.Queue}
	step := func(name string, fn func(context.Context) error) {
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("periodic "+name, "err", err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if s.Queues != nil {
				step("queue registration", s.Queues.RegisterQueues)
			}
			if why := s.resweep(ctx, queue); why != "" {
				slog.Info(why + "; handing every due webhook delivery a task")
				step("webhook delivery resweep", s.Resweep)
			}
			step("webhook fan-out", s.Webhooks.FanOut)
			step("webhook delivery sweep", s.Webhooks.SweepDeliveries)
			if r, ok := s.Webhooks.(Recoverer); ok {
				step("webhook recovery sweep", r.SweepRecoveries)
			}
			if s.Sending != nil {
				step("unsettled send sweep", s.Sending.SweepSending)
			}
			if s.MetaHooks != nil {
				step("meta hook sweep", s.MetaHooks.SweepHooks)
			}
			if s.Notices != nil {
				step("owner notice sending", s.Notices.SendNotices)
			}
			if now.Sub(lastPurge) >= purgeEvery {
				lastPurge = now
				step("event retention", s.Webhooks.PurgeExpiredEvents)
				if s.RequestLogs != nil {
					step("request log retention", s.RequestLogs.PurgeExpired)
				}
				step("idempotency key purge", func(ctx context.Context) error {
					return PurgeIdempotencyKeys(ctx, s.Idempotency, clock.Clock(s.Clock).Now())
				})
				if s.Archive != nil {
					step("archived task cleanup", s.Archive.DeleteArchived)
				}
			}
		}
	}
}
