package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// TypeInboundMail processes one mail the SMTP listener stored.
const TypeInboundMail = "email:inbound"

// MailQueue is the queue of a queue's inbound mail. Servers of its own
// work it (NewMailServerOn), with MailConcurrency slots, so mail, however
// slow to read, never holds a slot that webhook deliveries or other tasks
// wait for.
func MailQueue(queue string) string { return queue + "-mail" }

// MailConcurrency is how many mails a worker processes at once.
const MailConcurrency = 4

// NewMailServerOn is an asynq server working the MailQueue of queue alone.
func NewMailServerOn(opt asynq.RedisConnOpt, concurrency int, queue string) *asynq.Server {
	return asynq.NewServer(opt, mailServerConfig(concurrency, queue))
}

func mailServerConfig(concurrency int, queue string) asynq.Config {
	cfg := serverConfig(concurrency, queue)
	cfg.Queues = map[string]int{MailQueue(queue): 1}
	return cfg
}

// InboundMail queues the processing of a stored mail on the MailQueue; its
// id is the task's, so queuing it twice keeps one task.
func (c *Client) InboundMail(ctx context.Context, id string) error {
	err := c.enqueue(ctx, asynq.NewTask(TypeInboundMail, []byte(id)), asynq.Queue(MailQueue(c.Queue)),
		asynq.TaskID("mail:"+id), asynq.MaxRetry(10))
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// MailProcessor turns a stored mail into messages; mail.Processor is one.
type MailProcessor interface {
	Process(ctx context.Context, id string) error
}

// InboundMailHandler runs TypeInboundMail tasks.
func InboundMailHandler(p MailProcessor) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		if len(t.Payload()) == 0 {
			return fmt.Errorf("%s: empty payload: %w", TypeInboundMail, asynq.SkipRetry)
		}
		return p.Process(ctx, string(t.Payload()))
	}
}

// MailSweeper processes stored mail whose task was lost.
type MailSweeper interface {
	Sweep(ctx context.Context, grace time.Duration) error
}

// RunMailSweep sweeps stored mail every interval until ctx ends; safe to
// run on several workers (each mail is locked while processed).
func RunMailSweep(ctx context.Context, s MailSweeper, every time.Duration) {
	runEvery(ctx, every, "inbound mail sweep", func(ctx context.Context) error { return s.Sweep(ctx, 5*time.Second) })
}

// runEvery calls fn every interval until ctx ends, logging its errors as
// those of the periodic work named name.
func runEvery(ctx context.Context, every time.Duration, name string, fn func(context.Context) error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := fn(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("periodic "+name, "err", err)
			}
		}
	}
}
