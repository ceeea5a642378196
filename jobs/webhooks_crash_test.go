package jobs_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/redis/go-redis/v9"
)

// The worker process TestWorkerKilledMidDeliveryFinishesAfterRestart
// starts and kills: this test binary, re-run with only this test and the
// WEBHOOK_WORKER_* environment.
func TestHelperWebhookWorkerProcess(t *testing.T) {
	dsn := os.Getenv("WEBHOOK_WORKER_DATABASE_URL")
	if dsn == "" {
		t.Skip("the worker process of TestWorkerKilledMidDeliveryFinishesAfterRestart")
	}
	store, err := repo.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	now, err := time.Parse(time.RFC3339Nano, os.Getenv("WEBHOOK_WORKER_NOW"))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	client := jobs.NewClient(opt)
	client.Queue = os.Getenv("WEBHOOK_WORKER_QUEUE")
	svc := graph.NewServices(graph.Config{Store: store, Jobs: client, Secret: os.Getenv("WEBHOOK_WORKER_SECRET"),
		Clock: func() time.Time { return now }, Webhooks: resttest.WebhookConfig()})
	srv := jobs.NewServerOn(opt, 2, client.Queue)
	mux := asynq.NewServeMux()
	jobs.RegisterWebhooks(mux, svc.Webhooks)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	select {} // until the parent kills the process
}

func TestWorkerKilledMidDeliveryFinishesAfterRestart(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	rc := resttest.NewReceiver(t, func(n int, _ resttest.Request) int {
		if n == 1 {
			close(arrived)
			<-release // the worker dies while it waits for this answer
		}
		return 200
	})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ep := w.CreateEndpoint(rc.URL, onlyMessages)

	var db string
	if err := w.Store.DB.Get(&db, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	dsn, _ := url.Parse(repotest.AdminURL())
	dsn.Path = "/" + db
	worker := exec.Command(os.Args[0], "-test.run=^TestHelperWebhookWorkerProcess$")
	worker.Env = append(os.Environ(), "WEBHOOK_WORKER_DATABASE_URL="+dsn.String(),
		"WEBHOOK_WORKER_QUEUE="+w.Queue, "WEBHOOK_WORKER_SECRET="+w.Config.Secret,
		"WEBHOOK_WORKER_NOW="+w.Clock.Now().Format(time.RFC3339Nano))
	worker.Stdout, worker.Stderr = os.Stderr, os.Stderr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = worker.Process.Kill()
		_ = worker.Wait()
		forgetServer(t, worker.Process.Pid)
	})

	w.Inbound("website", "visitor-crash", "are you there?")
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker process never sent the delivery")
	}
	if err := worker.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = worker.Wait()
	close(release)

	id := newest(w, ep.ID)
	d := w.Delivery(id)
	if d.Status != "pending" || d.Attempts != 0 || d.LeaseUntil == nil {
		t.Fatalf("after the kill: %+v", d)
	}
	// A new worker starts. While the dead worker's lease lasts, nothing
	// takes the delivery over.
	w.StartWorker()
	if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if got := w.Delivery(id); got.Status != "pending" || len(rc.Events()) != 1 {
		t.Fatalf("taken over while leased: %+v", got)
	}
	// Once it has run out, the sweep hands the delivery to the new worker,
	// and the event arrives again: at least once, never lost.
	w.Clock.Set(*d.LeaseUntil)
	if err := w.Resolver.Webhooks.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	d = w.WaitDelivery(id, "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	got := rc.Events()
	if d.Attempts != 1 || len(got) != 2 || got[0].ID() != got[1].ID() {
		t.Errorf("after the restart: %d attempts recorded, %d requests", d.Attempts, len(got))
	}
}

// forgetServer removes what a killed asynq server process left in Redis: its
// entries in asynq's lists of servers and workers (a server that stops
// properly removes them itself). Its queue's keys go with DropQueue.
func forgetServer(t *testing.T, pid int) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := redis.ParseURL(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.WithoutCancel(t.Context())
	prefix := fmt.Sprintf("{%s:%d:", host, pid)
	for _, list := range []string{"asynq:servers", "asynq:workers"} {
		members, err := rdb.ZRange(ctx, list, 0, -1).Result()
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range members {
			if strings.HasPrefix(m, list+":"+prefix) {
				if err := rdb.ZRem(ctx, list, m).Err(); err != nil {
					t.Error(err)
				}
				if err := rdb.Del(ctx, m).Err(); err != nil {
					t.Error(err)
				}
			}
		}
	}
}
