package jobs_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestEnqueueWhileRedisIsDown: with nothing listening where Redis should be,
// an enqueue fails within its bound, and the next ones fail at once without
// trying Redis (the sweeps redo what they owed), so a request that enqueues
// after its commit is not held up by the outage.
func TestEnqueueWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	c := jobs.NewClient(asynq.RedisClientOpt{Addr: "127.0.0.1:1"})
	defer c.Close()
	ctx := context.Background()
	err := c.DeliveryDue(ctx, "del_0", 0)
	if err == nil || errors.Is(err, jobs.ErrQueueDown) {
		t.Fatalf("first enqueue: %v, want Redis's own error", err)
	}
	for name, enqueue := range map[string]func() error{
		"fan-out":  func() error { return c.EventsRecorded(ctx) },
		"delivery": func() error { return c.DeliveryDue(ctx, "del_1", time.Minute) },
	} {
		if err := enqueue(); !errors.Is(err, jobs.ErrQueueDown) {
			t.Errorf("%s while paused: %v, want ErrQueueDown", name, err)
		}
	}
}

// TestCommitNoticesDoNotWaitForRedis: the notice a commit owes
// (EventsRecorded; a sandbox send owes no other) is handed to the client's
// goroutine, so a request returns before Redis answers (here it never
// does); Close returns once its one try has failed.
func TestCommitNoticesDoNotWaitForRedis(t *testing.T) {
	t.Parallel()
	c := jobs.NewClient(asynq.RedisClientOpt{Addr: "127.0.0.1:1"})
	if err := c.EventsRecorded(context.Background()); err != nil {
		t.Errorf("events recorded: %v, want nil (enqueued in the background)", err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

// TestEnqueueGivenUpByItsCallerDoesNotPause: a caller's cancelled context
// says nothing about Redis; the next enqueue is tried.
func TestEnqueueGivenUpByItsCallerDoesNotPause(t *testing.T) {
	repotest.NeedsRedis(t)
	t.Parallel()
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := jobs.NewClient(opt)
	c.Queue = "test-enqueue-" + time.Now().Format("150405.000000000")
	defer func() {
		_ = asynq.NewInspector(opt).DeleteQueue(c.Queue, true)
		c.Close()
	}()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.DeliveryDue(cancelled, "del_1", time.Minute); err == nil {
		t.Fatal("an enqueue with a cancelled context succeeded")
	}
	if err := c.DeliveryDue(context.Background(), "del_2", time.Minute); err != nil {
		t.Errorf("after a cancelled enqueue: %v, want it tried and done", err)
	}
}

// redisClient is a client on a queue of the test's own, whose queues are
// dropped when the test ends.
func redisClient(t *testing.T) (*jobs.Client, asynq.RedisConnOpt) {
	t.Helper()
	repotest.NeedsRedis(t)
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := jobs.NewClient(opt)
	c.Queue = resttest.NewQueueName()
	t.Cleanup(func() {
		_ = c.Close()
		resttest.DropQueue(t, c.Queue)
		resttest.DropQueue(t, jobs.WebhookQueue(c.Queue))
	})
	return c, opt
}

// TestCommitsShareOnePendingPass: however many commits announce events, one
// fan-out and one AI dispatch wait in the queue, and fan-outs and deliveries
// go to the webhook queue.
func TestCommitsShareOnePendingPass(t *testing.T) {
	t.Parallel()
	c, opt := redisClient(t)
	for range 50 {
		if err := c.EventsRecorded(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeliveryDue(t.Context(), "whd_1", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // hands over what the announcer holds
		t.Fatal(err)
	}
	ins := asynq.NewInspector(opt)
	defer ins.Close()
	count := map[string]int{}
	for _, q := range []string{c.Queue, jobs.WebhookQueue(c.Queue)} {
		tasks, err := ins.ListPendingTasks(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			count[q+" "+task.Type]++
		}
	}
	want := map[string]int{jobs.WebhookQueue(c.Queue) + " " + jobs.TypeWebhookFanOut: 1, c.Queue + " " + jobs.TypeAIDispatch: 1,
		jobs.WebhookQueue(c.Queue) + " " + jobs.TypeWebhookDeliver: 1}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("pending tasks %v, want %v", count, want)
	}
}

// TestSendsAskForTheFanOutAlone: the commits of sends (FanOutDue) owe no
// AI dispatch pass, so however many there are, only a fan-out waits.
func TestSendsAskForTheFanOutAlone(t *testing.T) {
	t.Parallel()
	c, opt := redisClient(t)
	for range 20 {
		if err := c.FanOutDue(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	ins := asynq.NewInspector(opt)
	defer ins.Close()
	got := map[string]int{}
	for _, q := range []string{c.Queue, jobs.WebhookQueue(c.Queue)} {
		tasks, err := ins.ListPendingTasks(q)
		if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) { // never used
			t.Fatal(err)
		}
		for _, task := range tasks {
			got[task.Type]++
		}
	}
	if want := map[string]int{jobs.TypeWebhookFanOut: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("pending tasks %v, want %v", got, want)
	}
}

// TestCommitWhilePassRunsMakesAnother: a pass that runs may have read
// before a commit; the commit's notice is not swallowed by the running
// task's id but makes another pass. A commit that may owe a dispatch pass
// keeps its mark through the rounds the running pass refuses, even when
// only sends (FanOutDue) commit meanwhile.
func TestCommitWhilePassRunsMakesAnother(t *testing.T) {
	for _, tc := range []struct {
		typ, other string
		meanwhile  func(context.Context, *jobs.Client) error
	}{
		{jobs.TypeWebhookFanOut, jobs.TypeAIDispatch, nil},
		{jobs.TypeAIDispatch, jobs.TypeWebhookFanOut, func(ctx context.Context, c *jobs.Client) error {
			time.Sleep(100 * time.Millisecond) // rounds refused by the running pass
			return c.FanOutDue(ctx)
		}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			t.Parallel()
			c, opt := redisClient(t)
			runs := make(chan int, 10)
			release := make(chan struct{})
			var n int
			mux := asynq.NewServeMux()
			mux.HandleFunc(tc.typ, func(context.Context, *asynq.Task) error {
				n++ // one slot: handlers never overlap
				runs <- n
				if n == 1 {
					<-release
				}
				return nil
			})
			mux.HandleFunc(tc.other, func(context.Context, *asynq.Task) error { return nil })
			srv := jobs.NewServerOn(opt, 1, c.Queue)
			if err := srv.Start(mux); err != nil {
				t.Fatal(err)
			}
			defer srv.Shutdown()
			if err := c.EventsRecorded(t.Context()); err != nil {
				t.Fatal(err)
			}
			<-runs // the first pass runs
			if err := c.EventsRecorded(t.Context()); err != nil {
				t.Fatal(err)
			}
			if tc.meanwhile != nil {
				if err := tc.meanwhile(t.Context(), c); err != nil {
					t.Fatal(err)
				}
			}
			close(release)
			select {
			case <-runs:
			case <-time.After(15 * time.Second):
				t.Fatal("the commit during the running pass made no other pass")
			}
		})
	}
}
