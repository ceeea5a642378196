package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Task types of webhooks.
const (
	// TypeWebhookFanOut turns recorded events into deliveries.
	TypeWebhookFanOut = "webhook:fanout"
	// TypeWebhookDeliver makes one attempt of one delivery.
	TypeWebhookDeliver = "webhook:deliver"
)

// DeliverPayload names the delivery; the handler re-reads the rest.
type DeliverPayload struct {
	DeliveryID string `json:"delivery_id"`
	// NotBefore is when the attempt is due. asynq releases a scheduled task
	// at the start of its second, up to a second early, and the handler
	// waits out the rest; Postgres still decides whether it is due.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// NewDeliverTask returns the task of one attempt of a delivery.
func NewDeliverTask(deliveryID string, notBefore time.Time) (*asynq.Task, error) {
	payload, err := json.Marshal(DeliverPayload{DeliveryID: deliveryID, NotBefore: notBefore})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeWebhookDeliver, payload), nil
}

// EventsRecorded is called after a commit that recorded events: it asks for
// a fan-out and, as the same commit may owe the AI work or free an agent, a
// dispatch pass (live.md 8). It returns at once: the background announcer
// enqueues them, coalesced (enqueueCoalesced), and while Redis is known to
// be down it answers ErrQueueDown. A notice lost in a crash is no event
// lost: the sweeps fan out whatever Postgres has not.
func (c *Client) EventsRecorded(context.Context) error {
	if c.paused() {
		return ErrQueueDown
	}
	c.announcer.Wake()
	return nil
}

// DeliveryDue asks for an attempt of a delivery after a delay, on the
// webhook queue, which workers take from first. asynq's own
// retries are off: the schedule lives in Postgres, and each attempt is a
// task of its own. A duplicate task is harmless, as the handler leases the
// delivery in Postgres before it sends.
func (c *Client) DeliveryDue(ctx context.Context, deliveryID string, in time.Duration) error {
	var at time.Time
	opts := []asynq.Option{asynq.Queue(WebhookQueue(c.Queue)), asynq.MaxRetry(0)}
	if in > 0 {
		at = time.Now().Add(in)
		opts = append(opts, asynq.ProcessAt(at))
	}
	task, err := NewDeliverTask(deliveryID, at)
	if err != nil {
		return err
	}
	err = c.enqueue(ctx, task, opts...)
	return err
}

// FanOuter turns recorded events into deliveries.
type FanOuter interface {
	FanOut(ctx context.Context) error
}

// Attempter makes one attempt of a delivery, if it is due.
type Attempter interface {
	AttemptDelivery(ctx context.Context, deliveryID string) error
}

// Webhooks is the work behind the webhook tasks and sweeps; webhook.Service
// does it.
type Webhooks interface {
	FanOuter
	Attempter
	// SweepDeliveries hands the queue deliveries whose task looks lost.
	SweepDeliveries(ctx context.Context) error
	// PurgeExpiredEvents deletes events and deliveries past retention.
	PurgeExpiredEvents(ctx context.Context) error
}

// RegisterWebhooks adds the webhook task handlers to the mux.
func RegisterWebhooks(mux *asynq.ServeMux, w Webhooks) {
	mux.Handle(TypeWebhookFanOut, FanOutHandler(w))
	mux.Handle(TypeWebhookDeliver, DeliverHandler(w))
}

// FanOutHandler is the handler of TypeWebhookFanOut over f.
func FanOutHandler(f FanOuter) asynq.HandlerFunc {
	return func(ctx context.Context, _ *asynq.Task) error { return f.FanOut(ctx) }
}

// DeliverHandler is the handler of TypeWebhookDeliver over a.
func DeliverHandler(a Attempter) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p DeliverPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("%s payload: %v: %w", TypeWebhookDeliver, err, asynq.SkipRetry)
		}
		if early := time.Until(p.NotBefore); early > 0 {
			t := time.NewTimer(min(early, time.Second))
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		return a.AttemptDelivery(ctx, p.DeliveryID)
	}
}

// Reverifier runs the background handshakes of unverified endpoints that
// are due; *webhook.Service is one.
type Reverifier interface {
	ReverifyEndpoints(ctx context.Context) error
}

// RunWebhookReverify runs the due background verifications every interval
// until ctx ends. It has a loop of its own because a handshake may wait for
// the webhook timeout, which must not hold back the delivery sweeps.
func RunWebhookReverify(ctx context.Context, r Reverifier, every time.Duration) {
	runEvery(ctx, every, "webhook re-verification", r.ReverifyEndpoints)
}
