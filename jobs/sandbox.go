package jobs

import (
	"context"
	"time"

	"github.com/hibiken/asynq"
)

// SandboxEvery is how often each worker completes the sandbox messages that
// are due: a message becomes delivered or failed no earlier
// than MSGSVC_SANDBOX_DELIVERY_DELAY after it was sent, and at most about
// this interval (plus a pass's own time) later, well within the second the
// decisions allow. A pass that finds nothing due is one indexed statement.
const SandboxEvery = 200 * time.Millisecond

// SandboxDeliverer completes the sandbox messages due for their
// delivered/failed step, in batches straight from Postgres;
// send.Service is one.
type SandboxDeliverer interface {
	DeliverSandbox(ctx context.Context, delay time.Duration) error
}

// RunSandboxDeliveries completes due sandbox messages every SandboxEvery
// until ctx ends. Every worker process runs it: passes skip the rows other
// passes hold rather than wait, so several run side by side, and a pass cut
// short by a stop rolls back and is redone by the next. No task or Redis is
// involved: what is due is in Postgres, so nothing can be lost.
func RunSandboxDeliveries(ctx context.Context, d SandboxDeliverer, delay time.Duration) {
	runEvery(ctx, SandboxEvery, "sandbox delivery", func(ctx context.Context) error { return d.DeliverSandbox(ctx, delay) })
}

// legacySandboxTask is the type of a per-message task that older versions
// queued in Redis for each sandbox send, to run at its due time. Such a
// task, still queued
// when a new worker takes it, is acknowledged and dropped, since the message
// it names is completed by RunSandboxDeliveries from Postgres like any
// other (left unhandled, asynq would retry it for hours, logging each
// failure, and then archive it). While older workers still run during a
// rolling upgrade, they complete the messages of the tasks they take and
// the new passes the rest; whichever comes second finds the message locked
// or settled and leaves it, so no message.status is recorded twice. Remove
// this handler in the release after this one: no such task is left then.
const legacySandboxTask = "message:transition"

// dropLegacySandboxTask acknowledges a legacySandboxTask.
func dropLegacySandboxTask(context.Context, *asynq.Task) error { return nil }
