// Package jobs runs msgsvc's background work on asynq: webhook fan-out and
// delivery, retries, sandbox status changes and retention. Postgres is the
// source of truth; a task carries ids only and its handler re-reads state, so
// running it twice is harmless.
package jobs

import (
	"time"

	"github.com/hibiken/asynq"
)

// Queue is the asynq queue msgsvc uses.
const Queue = "msgsvc"

// Client enqueues tasks; it is the resolvers' Enqueuer.
type Client struct {
	asynq *asynq.Client
	// Queue is the asynq queue tasks go to; tests give each their own.
	Queue string
	// SandboxDelay is how long a sandbox message stays sent before it is
	// delivered (MSGSVC_SANDBOX_DELIVERY_DELAY).
	SandboxDelay time.Duration
}

// NewClient returns a client over a Redis connection, on the default queue.
func NewClient(opt asynq.RedisConnOpt) *Client {
	return &Client{asynq: asynq.NewClient(opt), Queue: Queue, SandboxDelay: 2 * time.Second}
}

// Close closes the client's connection.
func (c *Client) Close() error { return c.asynq.Close() }

// NewServer returns an asynq server polling scheduled work every 200 ms, so
// delayed tasks run within a second of their due time (decisions 4).
func NewServer(opt asynq.RedisConnOpt, concurrency int) *asynq.Server {
	return NewServerOn(opt, concurrency, Queue)
}

// NewServerOn is NewServer working one named queue (tests use their own).
func NewServerOn(opt asynq.RedisConnOpt, concurrency int, queue string) *asynq.Server {
	return asynq.NewServer(opt, asynq.Config{
		Concurrency:              concurrency,
		Queues:                   map[string]int{queue: 1},
		DelayedTaskCheckInterval: 200 * time.Millisecond,
		LogLevel:                 asynq.WarnLevel,
		// An idle worker looks for new tasks every ~100 ms rather than
		// asynq's 1 s, so a webhook leaves well within a second of its event.
		TaskCheckInterval: 100 * time.Millisecond,
	})
}

// Handlers are the domain services behind the tasks.
type Handlers struct {
	Webhooks Webhooks
	Sandbox  SandboxDeliverer
}

// Register adds every task handler to the mux, each behind Recover.
func Register(mux *asynq.ServeMux, h Handlers) {
	mux.Use(Recover)
	mux.Handle(TypeSandboxDelivery, SandboxHandler(h.Sandbox))
	RegisterWebhooks(mux, h.Webhooks)
}
