package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// announceAgainAfter is the pause before the announcer asks again for a
// task whose previous one is running: a commit in the last moments of a
// pass waits this much longer, and a pass that runs costs the announcer
// four Redis calls per pause.
const announceAgainAfter = 25 * time.Millisecond

// announce is a round of the announcer: one fan-out pass asked for and,
// when a commit since the last round may owe one (dispatchOwed), one AI
// dispatch pass, each coalesced with one already waiting. The fan-out goes
// to the webhook queue: it makes the deliveries, and waiting behind a burst
// of other tasks (AI passes, inbound mail) it would hold them all back (there is
// never more than one waiting, so it delays a delivery by one pass at most).
// A dispatch pass to be asked for again keeps its mark for the next round.
func (c *Client) announce(ctx context.Context) (again bool) {
	dispatch := c.dispatchOwed.Swap(false)
	again = c.ask(ctx, WebhookQueue(c.Queue), TypeWebhookFanOut)
	if dispatch && c.ask(ctx, c.Queue, TypeAIDispatch) {
		c.dispatchOwed.Store(true)
		again = true
	}
	return again
}

// ask is enqueueCoalesced with its error logged: the sweeps catch up.
func (c *Client) ask(ctx context.Context, queue, typ string) (again bool) {
	again, err := c.enqueueCoalesced(ctx, queue, typ)
	if err != nil {
		slog.Warn("announce "+typ+"; the sweep will catch up", "err", err)
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
