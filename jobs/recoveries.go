package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
)

// TypeWebhookRecover replays the failed deliveries of a recovery
// (webhook.Service.RecoverDeliveries).
const TypeWebhookRecover = "webhook:recover"

// RecoverPayload names the recovery of a task; the handler re-reads it.
type RecoverPayload struct {
	RecoveryID string `json:"recovery_id"`
}

// NewRecoverTask returns the task of a recovery.
func NewRecoverTask(recoveryID string) (*asynq.Task, error) {
	payload, err := json.Marshal(RecoverPayload{RecoveryID: recoveryID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeWebhookRecover, payload), nil
}

// RecoveryDue asks for a recovery's run, on the webhook queue. asynq's
// retries are off: the recovery's progress is in Postgres, and the sweep
// (Recoverer.SweepRecoveries) hands a stalled one a task again.
func (c *Client) RecoveryDue(ctx context.Context, recoveryID string) error {
	task, err := NewRecoverTask(recoveryID)
	if err == nil {
		err = c.enqueue(ctx, task, c.deliverOptions()...)
	}
	return err
}

// Recoverer runs recoveries; *webhook.Service is one.
type Recoverer interface {
	RunRecovery(ctx context.Context, recoveryID string) error
	// SweepRecoveries hands a task to the recoveries whose task was lost.
	SweepRecoveries(ctx context.Context) error
}

// RecoverHandler is the handler of TypeWebhookRecover over r.
func RecoverHandler(r Recoverer) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p RecoverPayload
		err := json.Unmarshal(t.Payload(), &p)
		if err == nil && p.RecoveryID == "" {
			err = errors.New("no recovery_id")
		}
		if err != nil {
			return fmt.Errorf("%s payload: %v: %w", TypeWebhookRecover, err, asynq.SkipRetry)
		}
		return r.RunRecovery(ctx, p.RecoveryID)
	}
}

// registerRecoveries adds the recovery handler when the webhooks' service
// runs recoveries (every real one does; some tests' fakes do not).
func registerRecoveries(mux *asynq.ServeMux, w Webhooks) {
	if r, ok := w.(Recoverer); ok {
		mux.Handle(TypeWebhookRecover, RecoverHandler(r))
	}
}
