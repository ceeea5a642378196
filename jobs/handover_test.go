package jobs_test

import (
	"context"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
)

// A delivery's task that could not be enqueued is reported once to the
// sweeps (which hand every due delivery a task again when the queue
// answers); nothing is reported before.
func TestHandOverFailedIsReportedOnce(t *testing.T) {
	c := jobs.NewClient(asynq.RedisClientOpt{Addr: "127.0.0.1:1"}) // nothing listens
	defer c.Close()
	ctx := context.Background()
	if c.HandOverFailed() {
		t.Fatal("a failure reported before any hand-over")
	}
	if err := c.DeliveryDue(ctx, "whd_1", 0); err == nil {
		t.Fatal("an enqueue to no Redis succeeded")
	}
	if !c.HandOverFailed() || c.HandOverFailed() {
		t.Fatal("the failed DeliveryDue is not reported exactly once")
	}
	if err := c.DeliveriesDue(ctx, []string{"whd_2", "whd_3"}); err == nil {
		t.Fatal("an enqueue to no Redis succeeded")
	}
	if !c.HandOverFailed() || c.HandOverFailed() {
		t.Fatal("the failed DeliveriesDue is not reported exactly once")
	}
}
