package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
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

// DeliverPayload names the deliveries of a task; the handler re-reads the
// rest. A task of one delivery has exactly the shape of the version before
// grouped tasks ({"delivery_id", "not_before"}), so tasks queued by either
// version run on the other. A task of several names its first delivery in
// delivery_id and the others in more_delivery_ids, which a worker of the
// older version ignores: it attempts the first, and the sweep hands the
// others over again.
type DeliverPayload struct {
	DeliveryID string `json:"delivery_id"`
	// MoreIDs are the other deliveries of a task of several
	// (DeliveriesDue), attempted at the same time as DeliveryID.
	MoreIDs []string `json:"more_delivery_ids,omitempty"`
	// NotBefore is when the attempt is due. asynq releases a scheduled task
	// at the start of its second, up to a second early, and the handler
	// waits out the rest; Postgres still decides whether it is due.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// IDs lists the deliveries the task names, DeliveryID first.
func (p *DeliverPayload) IDs() []string { return append([]string{p.DeliveryID}, p.MoreIDs...) }

// NewDeliverTask returns the task of one attempt of a delivery.
func NewDeliverTask(deliveryID string, notBefore time.Time) (*asynq.Task, error) {
	return newDeliverTask(DeliverPayload{DeliveryID: deliveryID, NotBefore: notBefore})
}

// NewDeliverGroupTask returns the task of one attempt, due now, of each of
// some deliveries (at least one).
func NewDeliverGroupTask(deliveryIDs []string) (*asynq.Task, error) {
	if len(deliveryIDs) == 0 {
		return nil, fmt.Errorf("%s: a task of no deliveries", TypeWebhookDeliver)
	}
	return newDeliverTask(DeliverPayload{DeliveryID: deliveryIDs[0], MoreIDs: deliveryIDs[1:]})
}

func newDeliverTask(p DeliverPayload) (*asynq.Task, error) {
	payload, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeWebhookDeliver, payload), nil
}

// EventsRecorded is called after a commit that recorded events: it asks for
// a fan-out and, as the same commit may owe the AI work or free an agent, a
// dispatch pass. It returns at once: the background announcer
// enqueues them, coalesced (enqueueCoalesced), and while Redis is known to
// be down it answers ErrQueueDown. A notice lost in a crash is no event
// lost: the sweeps fan out whatever Postgres has not.
func (c *Client) EventsRecorded(ctx context.Context) error {
	if c.paused() {
		return ErrQueueDown
	}
	c.dispatchOwed.Store(true) // before the wake-up, for its round to see
	return c.FanOutDue(ctx)
}

// FanOutDue is EventsRecorded for a commit that owes the fan-out only: its
// events are of outbound messages, and of the contact and conversation a
// send created, none of which gives the AI work or frees an agent. The
// announcer's round then asks for no dispatch pass, half its Redis calls.
func (c *Client) FanOutDue(context.Context) error {
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
	opts := c.deliverOptions()
	if in > 0 {
		at = time.Now().Add(in)
		opts = append(opts, asynq.ProcessAt(at))
	}
	task, err := NewDeliverTask(deliveryID, at)
	if err == nil {
		err = c.enqueue(ctx, task, opts...)
	}
	if err != nil {
		c.handOverFailed.Store(true)
	}
	return err
}

// HandOverFailed reports whether a delivery's task could not be enqueued
// (Redis away, or failing over) since the last call, and forgets it. The
// delivery is in Postgres; the worker's sweeps hand every due delivery a
// task again once the queue answers (Sweeps.HandOverFailed), rather than
// after the sweep's grace.
func (c *Client) HandOverFailed() bool { return c.handOverFailed.Swap(false) }

// DeliverGroupSize is the most deliveries one task of DeliveriesDue
// carries. Each task costs about three Redis round trips (enqueue, dequeue,
// done) whatever it carries, so a burst of 500 ready deliveries costs 50
// tasks rather than 500. It is at most the deliveries a worker process
// attempts at once (webhook.MaxAttemptsInFlight, 20), so a task's
// deliveries all start at once on an idle worker, and a burst still makes
// tasks for all of a worker's 10 slots, and for other worker processes, to
// share. (16 to a task made the lag at 100 sends a second worse,
// the history of docs/performance.md.)
const DeliverGroupSize = 10

// DeliveriesDue asks for an attempt of each of some deliveries due now, in
// tasks of up to DeliverGroupSize deliveries each, which the handler
// attempts at the same time (DeliverHandler). A single delivery goes at
// once as a task of one: nothing waits for a task to fill. Options and
// duplicates are as in DeliveryDue. asynq has no enqueue of several tasks
// in one round trip, so each task is an enqueue of its own.
func (c *Client) DeliveriesDue(ctx context.Context, deliveryIDs []string) error {
	var failed int
	var first error
	for _, group := range deliveryGroups(deliveryIDs, DeliverGroupSize) {
		task, err := NewDeliverGroupTask(group)
		if err == nil {
			err = c.enqueue(ctx, task, c.deliverOptions()...)
		}
		if err != nil {
			failed += len(group)
			first = cmp.Or(first, err)
		}
	}
	if first != nil {
		c.handOverFailed.Store(true)
		return fmt.Errorf("jobs: %d of %d webhook deliveries not enqueued: %w", failed, len(deliveryIDs), first)
	}
	return nil
}

// deliverOptions are the enqueue options of a delivery task: the webhook
// queue, and no asynq retries.
func (c *Client) deliverOptions() []asynq.Option {
	return []asynq.Option{asynq.Queue(WebhookQueue(c.Queue)), asynq.MaxRetry(0)}
}

// deliveryGroups splits ids into as few groups of at most n as there can
// be, in order, their sizes differing by one at most (11 ids in groups of
// up to 10 go as 5 and 6, not 10 and 1), so the tasks of a burst take about
// as long as each other.
func deliveryGroups(ids []string, n int) [][]string {
	k := (len(ids) + n - 1) / n
	groups := make([][]string, k)
	for i := range k {
		groups[i] = ids[i*len(ids)/k : (i+1)*len(ids)/k]
	}
	return groups
}

// FanOuter turns recorded events into deliveries.
type FanOuter interface {
	FanOut(ctx context.Context) error
}

// Attempter makes one attempt of each of some deliveries, those that are
// due, all at the same time, and returns when all are done; the error of
// one does not stop the others.
type Attempter interface {
	AttemptDeliveries(ctx context.Context, deliveryIDs []string) error
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
		err := json.Unmarshal(t.Payload(), &p)
		if err == nil && p.DeliveryID == "" {
			err = errors.New("no delivery_id")
		}
		if err != nil {
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
		// An error is logged by Observe and fails the task, which asynq
		// does not retry (MaxRetry(0)): the deliveries it names are each
		// retried, or handed over again, from Postgres.
		return a.AttemptDeliveries(ctx, p.IDs())
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
