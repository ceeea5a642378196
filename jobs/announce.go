package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// Coalescer runs rounds in the background on a one-slot signal: Wake never
// blocks, and wakes while a round runs make one more round, not one each.
// The loop takes the signal before it starts a round, so a wake after a
// round started always makes another: no wake-up is missed. The jobs
// client's announcements are one; the widget hubs' wake-ups another.
type Coalescer struct {
	signal chan struct{}
	// round does the work; again asks for another round after pause (the
	// work could not be done now, but can be soon).
	round func(ctx context.Context) (again bool)
	// pause waits before a round that asked again; false when ctx ended.
	pause func(ctx context.Context) bool
}

// maxAgain bounds the rounds one wake makes while each asks again (a pass
// that keeps running while events keep coming, which sees them itself; a
// task held active by a dead worker): after about 2 s of asking, the
// sweeps catch up.
const maxAgain = 80

// NewCoalescer returns a coalescer of rounds; a round that answers true is
// run again after pause. Run drives it.
func NewCoalescer(round func(context.Context) bool, pause time.Duration) *Coalescer {
	return &Coalescer{signal: make(chan struct{}, 1), round: round, pause: func(ctx context.Context) bool {
		t := time.NewTimer(pause)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}}
}

// Wake asks for a round and returns at once.
func (a *Coalescer) Wake() {
	select {
	case a.signal <- struct{}{}:
	default: // a round is asked for already, and has not started
	}
}

// Run does rounds until ctx ends; a wake still pending then gets one last
// round, so a graceful stop hands over what the last commits announced. A
// round runs to its end (each enqueue is bounded): ctx ending stops the
// loop between rounds, never halfway through one.
func (a *Coalescer) Run(ctx context.Context) {
	work := context.WithoutCancel(ctx)
	for {
		select {
		case <-a.signal:
		case <-ctx.Done():
			select {
			case <-a.signal:
				a.round(work)
			default:
			}
			return
		}
		for n := 0; a.round(work); n++ {
			if n == maxAgain || !a.pause(ctx) {
				break
			}
		}
	}
}

// announceAgainAfter is the pause before the announcer asks again for a
// task whose previous one is running: a commit in the last moments of a
// pass waits this much longer, and a pass that runs costs the announcer
// four Redis calls per pause.
const announceAgainAfter = 25 * time.Millisecond

// announce is a round of the announcer: one fan-out and one AI dispatch
// pass asked for, each coalesced with one already waiting. The fan-out goes
// to the webhook queue: it makes the deliveries, and waiting behind a burst
// of other tasks (AI passes, inbound mail) it would hold them all back (there is
// never more than one waiting, so it delays a delivery by one pass at most).
func (c *Client) announce(ctx context.Context) (again bool) {
	for typ, queue := range map[string]string{TypeWebhookFanOut: WebhookQueue(c.Queue), TypeAIDispatch: c.Queue} {
		more, err := c.enqueueCoalesced(ctx, queue, typ)
		if err != nil {
			slog.Warn("announce "+typ+"; the sweep will catch up", "err", err)
		}
		again = again || more
	}
	return again
}

// enqueueCoalesced asks for a pass of typ (a task with no payload that
// re-reads Postgres) on queue under the task id typ, so one waits in the
// queue at a time. A task of that id that waits has not read yet and so
// covers the caller's commit; one that runs may have read before it, so
// again says to ask once more shortly. A pass that failed keeps its id
// archived: it is deleted and asked for again.
func (c *Client) enqueueCoalesced(ctx context.Context, queue, typ string) (again bool, err error) {
	err = c.enqueue(ctx, asynq.NewTask(typ, nil), asynq.Queue(queue), asynq.MaxRetry(0), asynq.TaskID(typ))
	if !errors.Is(err, asynq.ErrTaskIDConflict) {
		return false, err
	}
	info, err := c.inspector.GetTaskInfo(queue, typ)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound):
		return true, nil // done in the meantime
	case err != nil:
		return false, err
	case info.State == asynq.TaskStatePending:
		return false, nil
	case info.State == asynq.TaskStateArchived || info.State == asynq.TaskStateCompleted:
		if err := c.inspector.DeleteTask(queue, typ); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
			return false, err
		}
	}
	return true, nil
}
