package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// TypeSandboxDelivery moves a sandbox message from sent to delivered or
// failed (decisions 4).
const TypeSandboxDelivery = "message:transition"

// SandboxDeliveryPayload names the message; the handler re-reads the rest.
type SandboxDeliveryPayload struct {
	WorkspaceID string `json:"workspace_id"`
	MessageID   string `json:"message_id"`
}

// NewSandboxDeliveryTask returns the task for one sandbox message.
func NewSandboxDeliveryTask(workspaceID, messageID string) (*asynq.Task, error) {
	payload, err := json.Marshal(SandboxDeliveryPayload{WorkspaceID: workspaceID, MessageID: messageID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeSandboxDelivery, payload), nil
}

// sandboxBuffer is how many delivered steps may wait for the background
// enqueue; a send that finds the buffer full enqueues its own.
const sandboxBuffer = 1024

// sandboxStep is a delivered step waiting to be scheduled, and when it is due.
type sandboxStep struct {
	workspaceID, messageID string
	at                     time.Time
}

// SandboxSent schedules the sandbox delivery of a message after the
// configured delay. The caller does not wait for Redis: the step is handed
// to a background goroutine, unless its buffer is full, and fails at once
// while Redis is known to be down. A step lost meanwhile (a crash, an
// outage) is completed by the sandbox sweep from Postgres.
func (c *Client) SandboxSent(ctx context.Context, workspaceID, messageID string) error {
	if c.paused() {
		return ErrQueueDown
	}
	step := sandboxStep{workspaceID: workspaceID, messageID: messageID, at: time.Now().Add(c.SandboxDelay)}
	select {
	case c.sandbox <- step:
		return nil
	default:
		return c.scheduleSandbox(ctx, step)
	}
}

// scheduleSandbox enqueues a delivered step. The task id is derived from the
// message, so scheduling it twice keeps one task.
func (c *Client) scheduleSandbox(ctx context.Context, s sandboxStep) error {
	task, err := NewSandboxDeliveryTask(s.workspaceID, s.messageID)
	if err != nil {
		return err
	}
	err = c.enqueue(ctx, task, asynq.Queue(c.Queue), asynq.ProcessAt(s.at),
		asynq.TaskID("sandbox:"+s.messageID), asynq.MaxRetry(10))
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// runSandbox schedules the buffered steps until ctx ends, then those still
// buffered.
func (c *Client) runSandbox(ctx context.Context) {
	work := context.WithoutCancel(ctx)
	schedule := func(s sandboxStep) {
		if err := c.scheduleSandbox(work, s); err != nil {
			slog.Warn("sandbox delivery not scheduled; the sweep will complete it", "message_id", s.messageID, "err", err)
		}
	}
	for {
		select {
		case s := <-c.sandbox:
			schedule(s)
		case <-ctx.Done():
			for {
				select {
				case s := <-c.sandbox:
					schedule(s)
				default:
					return
				}
			}
		}
	}
}

// SandboxDeliverer completes sandbox deliveries; the resolvers implement it.
type SandboxDeliverer interface {
	// FinishSandboxDelivery re-reads the message and, if it is still sent,
	// makes it delivered or failed; otherwise it does nothing.
	FinishSandboxDelivery(ctx context.Context, workspaceID, messageID string) error
}

// SandboxHandler is the handler of TypeSandboxDelivery over d.
func SandboxHandler(d SandboxDeliverer) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p SandboxDeliveryPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			// A payload that cannot be read never will be: do not retry it.
			return fmt.Errorf("%s payload: %v: %w", TypeSandboxDelivery, err, asynq.SkipRetry)
		}
		return d.FinishSandboxDelivery(ctx, p.WorkspaceID, p.MessageID)
	}
}
