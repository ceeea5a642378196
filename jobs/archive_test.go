package jobs_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/redis/go-redis/v9"
)

// TestDeleteArchivedDropsFailedTasks: a task that failed for good (as one
// whose worker was killed ends up) is archived by asynq; the purge step
// deletes it, leaving other queues alone.
func TestDeleteArchivedDropsFailedTasks(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	ins := asynq.NewInspector(w.Redis)
	defer ins.Close()
	// Nothing was ever queued: no error.
	if err := w.Client.DeleteArchived(t.Context()); err != nil {
		t.Fatalf("empty queue: %v", err)
	}
	srv := jobs.NewServerOn(w.Redis, 1, w.Queue)
	mux := asynq.NewServeMux()
	mux.HandleFunc("test:fail", func(context.Context, *asynq.Task) error { return errors.New("lost") })
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	cl := asynq.NewClient(w.Redis)
	defer cl.Close()
	for range 3 {
		if _, err := cl.Enqueue(asynq.NewTask("test:fail", nil), asynq.Queue(w.Queue), asynq.MaxRetry(0)); err != nil {
			t.Fatal(err)
		}
	}
	resttest.Eventually(t, "three archived tasks", func() bool {
		info, err := ins.GetQueueInfo(w.Queue)
		return err == nil && info.Archived == 3
	})
	if err := w.Client.DeleteArchived(t.Context()); err != nil {
		t.Fatal(err)
	}
	if info, err := ins.GetQueueInfo(w.Queue); err != nil || info.Archived != 0 {
		t.Errorf("after the cleanup: %+v, %v", info, err)
	}
}

// TestRegisterQueuesAfterRedisLostThem: asynq lists a queue once per
// process, at its first enqueue; after Redis lost that list (a restart
// without persistence), an enqueue does not list it again, RegisterQueues
// does.
func TestRegisterQueuesAfterRedisLostThem(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	ins := asynq.NewInspector(w.Redis)
	defer ins.Close()
	if err := w.Client.MetaHookStored(t.Context(), "hook_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := ins.GetQueueInfo(w.Queue); err != nil {
		t.Fatalf("after the first enqueue: %v", err)
	}
	rdb := w.Redis.MakeRedisClient().(redis.UniversalClient)
	defer rdb.Close()
	// Redis forgets the queue list (only this test's queues: the database
	// is shared with other tests).
	if err := rdb.SRem(t.Context(), "asynq:queues", w.Queue, jobs.WebhookQueue(w.Queue)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.MetaHookStored(t.Context(), "hook_2"); err != nil {
		t.Fatal(err)
	}
	if queues, err := ins.Queues(); err != nil || slices.Contains(queues, w.Queue) {
		t.Fatalf("an enqueue listed the queue again (%v): the test proves nothing", err)
	}
	if err := w.Client.RegisterQueues(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{w.Queue, jobs.WebhookQueue(w.Queue)} {
		if _, err := ins.GetQueueInfo(q); err != nil {
			t.Errorf("queue %s after RegisterQueues: %v", q, err)
		}
	}
}
