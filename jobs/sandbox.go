package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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

// SandboxSent schedules the sandbox delivery of a message after the
// configured delay. The task id is derived from the message, so scheduling
// it twice keeps one task.
func (c *Client) SandboxSent(ctx context.Context, workspaceID, messageID string) error {
	task, err := NewSandboxDeliveryTask(workspaceID, messageID)
	if err != nil {
		return err
	}
	err = c.enqueue(ctx, task, asynq.Queue(c.Queue), asynq.ProcessIn(c.SandboxDelay),
		asynq.TaskID("sandbox:"+messageID), asynq.MaxRetry(10))
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
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
