package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/ops/redisconn/redistest"
)

// A worker whose queue's Redis server changed (here a restart that lost
// every task; a Sentinel failover is the same for the worker: another run
// id answers) hands every due webhook delivery a task at once: events whose
// tasks were lost arrive within seconds, not after the sweep's grace (10
// minutes here, so only that resweep can deliver them in the bound).
//
// A delivery's first attempt runs in the worker's process; its retry is a
// task in the queue. The receiver refuses the second event once, so its
// retry waits as a task in the (paused) queue when Redis loses it.
func TestWebhooksResumeAfterTheQueueIsLost(t *testing.T) {
	bin := redistest.ServerBin(t)
	port, redisProc := redistest.Start(t, bin, 0, "")
	in := newInstallation(t, map[string]string{
		"REDIS_URL": fmt.Sprintf("redis://127.0.0.1:%d/0", port), "MSGSVC_SWEEP_GRACE": "10m"})
	in.serve("run")
	testKey := fixtureKey(t, "key_test_all")
	secret := newWebhookSecret(3)
	rc := newReceiver(t, secret)
	in.must(201, "POST", "/v1/webhook-endpoints", testKey, map[string]any{
		"url": rc.URL, "events": []string{"message.received"}, "testEvents": true, "secret": secret})
	state := func() (open, retrying, all int) {
		if err := in.store.DB.QueryRow(`SELECT count(*) FILTER (WHERE status IN ('pending', 'retrying')),
			count(*) FILTER (WHERE status = 'retrying' AND next_attempt_at < now()), count(*)
			FROM webhook_deliveries`).Scan(&open, &retrying, &all); err != nil {
			t.Fatal(err)
		}
		return open, retrying, all
	}
	in.inbound(testKey, "+15550007001", "before")
	eventually(t, 20*time.Second, "the first delivery", func() (bool, string) {
		o, _, all := state()
		return all == 1 && o == 0, fmt.Sprintf("%d of %d open", o, all)
	})

	// The next event's first attempt is refused; its retry's task waits
	// in the queue (paused, so that no worker takes it), and Redis loses
	// it: it restarts empty.
	queue := jobs.WebhookQueue(in.env["MSGSVC_QUEUE"])
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer insp.Close()
	if err := insp.PauseQueue(queue); err != nil {
		t.Fatal(err)
	}
	rc.refuseNext(1)
	in.inbound(testKey, "+15550007002", "its retry's task is lost")
	eventually(t, 20*time.Second, "the second delivery's retry due, its task waiting in the queue", func() (bool, string) {
		o, retrying, all := state()
		tasks, err := insp.ListPendingTasks(queue)
		waiting := 0
		for _, task := range tasks {
			if task.Type == jobs.TypeWebhookDeliver {
				waiting++
			}
		}
		return all == 2 && o == 1 && retrying == 1 && waiting == 1,
			fmt.Sprintf("%d of %d open, %d retry due, %d delivery tasks waiting (%v)", o, all, retrying, waiting, err)
	})
	if err := redisProc.Kill(); err != nil {
		t.Fatal(err)
	}
	// Redis comes back empty, on the same address.
	redistest.Start(t, bin, port, "")
	eventually(t, 20*time.Second, "the delivery whose task was lost", func() (bool, string) {
		o, _, all := state()
		return all == 2 && o == 0, fmt.Sprintf("%d of %d open", o, all)
	})
	got := rc.received()
	if len(got) != 2 {
		t.Fatalf("the receiver got %v, want 2 events", got)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("event %s arrived %d times", id, n)
		}
	}
}
