// Package jobs runs msgsvc's background work: webhook fan-out and delivery,
// retries and AI work as asynq tasks, and in loops of every worker the
// sandbox status changes, the sweeps and retention. Postgres is the source
// of truth; a task carries ids only and its handler re-reads state, so
// running it twice is harmless.
package jobs

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/msgsvc/msgsvc/internal/coalesce"
)

// Queue is the asynq queue msgsvc uses (MSGSVC_QUEUE); webhook deliveries
// go to WebhookQueue(Queue), inbound mail to MailQueue(Queue).
const Queue = "msgsvc"

// WebhookQueue is the queue of a queue's webhook deliveries and fan-outs:
// workers take from it first (serverConfig), so a delivery does not wait
// behind the AI passes and Meta hooks of the queue itself.
func WebhookQueue(queue string) string { return queue + "-webhooks" }

// Client enqueues tasks; it is the services' Enqueuer (graph.Enqueuer).
// The notice a commit owes (EventsRecorded) goes to Redis from a goroutine
// of its own, so a request does not wait for it; Close stops it.
type Client struct {
	asynq     *asynq.Client
	inspector *asynq.Inspector
	// redis registers the queues again (RegisterQueues).
	redis redis.UniversalClient
	// Queue is the asynq queue tasks go to; tests give each their own.
	Queue string

	// pausedUntil (Unix nanoseconds) is when Redis is tried again after it
	// did not answer an enqueue.
	pausedUntil atomic.Int64
	// handOverFailed says a delivery's task could not be enqueued since
	// the last HandOverFailed.
	handOverFailed atomic.Bool

	announcer *coalesce.Coalescer
	// dispatchOwed says a commit since the announcer's last round may owe
	// an AI dispatch pass (EventsRecorded); a send's (FanOutDue) never does.
	dispatchOwed atomic.Bool
	stop         context.CancelFunc
	background   sync.WaitGroup
}

// Redis outages, as enqueueing sees them. Every task is owed by a row in
// Postgres that a sweep hands over again, so no request needs to wait long
// for Redis: an enqueue is given enqueueTimeout, and after one that Redis
// did not answer, none is tried for enqueuePause.
const (
	enqueueTimeout = 500 * time.Millisecond
	enqueuePause   = time.Second
)

// ErrQueueDown is the answer of an enqueue not tried because Redis did not
// answer one a moment ago.
var ErrQueueDown = errors.New("jobs: Redis did not answer a moment ago; not tried, the sweeps catch up")

// enqueue hands a task to Redis within enqueueTimeout, or fails at once
// while Redis is paused.
func (c *Client) enqueue(ctx context.Context, task *asynq.Task, opts ...asynq.Option) error {
	if c.paused() {
		return ErrQueueDown
	}
	bounded, cancel := context.WithTimeout(ctx, enqueueTimeout)
	defer cancel()
	_, err := c.asynq.EnqueueContext(bounded, task, opts...)
	// A caller that gave up, or a task that is already there, says nothing
	// about Redis.
	if err != nil && ctx.Err() == nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		c.pausedUntil.Store(time.Now().Add(enqueuePause).UnixNano())
	}
	return err
}

// paused says whether Redis did not answer an enqueue a moment ago.
func (c *Client) paused() bool { return time.Now().UnixNano() < c.pausedUntil.Load() }

// NewClient returns a client over a Redis connection, on the default queue,
// and starts its background enqueueing.
func NewClient(opt asynq.RedisConnOpt) *Client {
	c := &Client{asynq: asynq.NewClient(opt), inspector: asynq.NewInspector(opt), Queue: Queue}
	c.redis, _ = opt.MakeRedisClient().(redis.UniversalClient)
	c.announcer = coalesce.New(c.announce, announceAgainAfter)
	ctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.background.Go(func() { c.announcer.Run(ctx) })
	return c
}

// Close hands Redis what still waits to be enqueued, then closes the
// client's connections.
func (c *Client) Close() error {
	c.stop()
	c.background.Wait()
	errs := errors.Join(c.asynq.Close(), c.inspector.Close())
	if c.redis != nil {
		errs = errors.Join(errs, c.redis.Close())
	}
	return errs
}

// allQueues is the Redis set in which asynq lists the queues it knows:
// its inspector (GET /admin/queues, the queue metrics) reads only those.
const allQueues = "asynq:queues"

// RegisterQueues lists the client's queues in asynq's set of queues again.
// asynq adds a queue there once per process, at its first enqueue, so a
// Redis that lost its data (a restart without persistence, a failover to
// an empty replica) would forget them until every process restarts; the
// sweeps call this every pass, so metrics and /admin/queues come back
// within one.
func (c *Client) RegisterQueues(ctx context.Context) error {
	if c.redis == nil {
		return nil
	}
	return c.redis.SAdd(ctx, allQueues, c.Queue, WebhookQueue(c.Queue), MailQueue(c.Queue)).Err()
}

// DeleteArchived deletes the tasks asynq archived in the client's queue: a
// task whose worker was killed (its lease ran out) or that failed. Postgres
// knows what they owed and the sweeps redo it, so they would only pile up
// in Redis.
func (c *Client) DeleteArchived(context.Context) error {
	queues, err := c.inspector.Queues()
	if err != nil {
		return err
	}
	for _, q := range []string{c.Queue, WebhookQueue(c.Queue), MailQueue(c.Queue)} {
		if !slices.Contains(queues, q) {
			continue // a queue nothing was ever put in has nothing archived
		}
		if _, err := c.inspector.DeleteAllArchivedTasks(q); err != nil {
			return err
		}
	}
	return nil
}

// NewServer returns an asynq server polling scheduled work every 200 ms, so
// delayed tasks (webhook retries, sandbox steps) run within a second of
// their due time.
func NewServer(opt asynq.RedisConnOpt, concurrency int) *asynq.Server {
	return NewServerOn(opt, concurrency, Queue)
}

// NewServerOn is NewServer working one named queue (tests use their own)
// and its WebhookQueue.
func NewServerOn(opt asynq.RedisConnOpt, concurrency int, queue string) *asynq.Server {
	return asynq.NewServer(opt, serverConfig(concurrency, queue))
}

// Weights of a worker's queues: a free worker slot takes a webhook delivery
// first 9 times in 10 while both queues have tasks waiting (asynq samples
// the order by weight), so deliveries keep up with their events, and the
// other tasks still get a slot while deliveries pile up behind a slow
// endpoint (strict priority would starve them).
const (
	webhookWeight = 9
	queueWeight   = 1
)

func serverConfig(concurrency int, queue string) asynq.Config {
	return asynq.Config{
		Concurrency:              concurrency,
		Queues:                   map[string]int{queue: queueWeight, WebhookQueue(queue): webhookWeight},
		DelayedTaskCheckInterval: 200 * time.Millisecond,
		LogLevel:                 asynq.WarnLevel,
		Logger:                   asynqLogger{},
		// An idle worker looks for new tasks every ~100 ms rather than
		// asynq's 1 s, so a webhook leaves well within a second of its event.
		TaskCheckInterval: 100 * time.Millisecond,
		RetryDelayFunc:    retryDelay,
	}
}

// retryDelay is asynq's, except for a Meta hook: one failing is mostly a
// status that arrived before its send's confirm stored the wamid
// (graph/metahook), which is worth trying again within seconds, n+1 times
// 2 s, for the 10 retries about 110 s in all (the sweep carries on after).
func retryDelay(n int, err error, t *asynq.Task) time.Duration {
	if t.Type() == TypeMetaHook {
		return time.Duration(n+1) * 2 * time.Second
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// Handlers are the domain services behind the tasks.
type Handlers struct {
	Webhooks Webhooks
	// AI is nil where nothing answers customers (some tests).
	AI AI
	// Mail is nil where no inbound mail is processed (some tests).
	Mail MailProcessor
	// Meta is nil where no Meta webhooks are processed (some tests).
	Meta Meta
}

// Register adds every task handler to the mux, each behind Observe (its
// log line and metrics) and Recover.
func Register(mux *asynq.ServeMux, h Handlers) {
	mux.Use(Observe, Recover)
	mux.HandleFunc(legacySandboxTask, dropLegacySandboxTask)
	RegisterWebhooks(mux, h.Webhooks)
	registerRecoveries(mux, h.Webhooks)
	if h.Mail != nil {
		mux.Handle(TypeInboundMail, InboundMailHandler(h.Mail))
	}
	if h.Meta != nil {
		mux.Handle(TypeMetaHook, MetaHookHandler(h.Meta))
		mux.Handle(TypeTemplateSync, TemplateSyncHandler(h.Meta))
	}
	if h.AI != nil {
		mux.Handle(TypeAIDispatch, AIDispatchHandler(h.AI))
		mux.Handle(TypeAIReply, AIReplyHandler(h.AI))
	}
}
