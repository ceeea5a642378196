package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
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
	err := c.SandboxSent(ctx, "ws_main", "msg_1")
	if err == nil || errors.Is(err, jobs.ErrQueueDown) {
		t.Fatalf("first enqueue: %v, want Redis's own error", err)
	}
	for name, enqueue := range map[string]func() error{
		"fan-out":  func() error { return c.EventsRecorded(ctx) },
		"delivery": func() error { return c.DeliveryDue(ctx, "del_1", time.Minute) },
		"sandbox":  func() error { return c.SandboxSent(ctx, "ws_main", "msg_2") },
	} {
		if err := enqueue(); !errors.Is(err, jobs.ErrQueueDown) {
			t.Errorf("%s while paused: %v, want ErrQueueDown", name, err)
		}
	}
}

// TestEnqueueGivenUpByItsCallerDoesNotPause: a caller's cancelled context
// says nothing about Redis; the next enqueue is tried.
func TestEnqueueGivenUpByItsCallerDoesNotPause(t *testing.T) {
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
