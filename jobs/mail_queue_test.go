package jobs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// Inbound mail goes to a queue of its own, worked by a server of its own:
// with more mail tasks than any server has slots, each stuck, a webhook
// delivery still runs, and the mail holds only the mail server's slots.
func TestMailNeverHoldsAWebhookSlot(t *testing.T) {
	t.Parallel()
	c, opt := redisClient(t)
	t.Cleanup(func() { resttest.DropQueue(t, jobs.MailQueue(c.Queue)) })
	var mails atomic.Int32
	stuck := make(chan struct{})
	delivered := make(chan struct{}, 1)
	mux := asynq.NewServeMux()
	mux.HandleFunc(jobs.TypeInboundMail, func(ctx context.Context, _ *asynq.Task) error {
		mails.Add(1)
		select {
		case <-stuck:
		case <-ctx.Done():
		}
		return nil
	})
	mux.HandleFunc(jobs.TypeWebhookDeliver, func(context.Context, *asynq.Task) error {
		delivered <- struct{}{}
		return nil
	})
	for _, srv := range []*asynq.Server{jobs.NewServerOn(opt, 10, c.Queue), jobs.NewMailServerOn(opt, jobs.MailConcurrency, c.Queue)} {
		if err := srv.Start(mux); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Shutdown)
	}
	t.Cleanup(func() { close(stuck) })
	for i := range 20 {
		if err := c.InboundMail(t.Context(), fmt.Sprintf("im_%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	resttest.Eventually(t, "the mail server's slots to fill", func() bool { return mails.Load() == jobs.MailConcurrency })
	if err := c.DeliveryDue(t.Context(), "whd_1", 0); err != nil {
		t.Fatal(err)
	}
	resttest.Eventually(t, "the delivery", func() bool { return len(delivered) == 1 })
	if got := mails.Load(); got != jobs.MailConcurrency {
		t.Fatalf("%d mails running, want the mail server's %d slots only", got, jobs.MailConcurrency)
	}
	ins := asynq.NewInspector(opt)
	defer ins.Close()
	info, err := ins.GetQueueInfo(jobs.MailQueue(c.Queue))
	if err != nil || info.Pending != 20-jobs.MailConcurrency {
		t.Fatalf("mail queue: %+v %v; want %d pending", info, err, 20-jobs.MailConcurrency)
	}
}
