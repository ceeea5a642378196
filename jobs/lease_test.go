package jobs_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/redis/go-redis/v9"
)

// countingMeta counts the template syncs a worker makes.
type countingMeta struct {
	all, one atomic.Int64
}

func (m *countingMeta) Process(context.Context, string) error { return nil }
func (m *countingMeta) SyncTemplates(_ context.Context, workspaceID, accountID string) error {
	if workspaceID == "" && accountID == "" {
		m.all.Add(1)
	} else {
		m.one.Add(1)
	}
	return nil
}

func leaseRedis(t *testing.T) *redis.Client {
	t.Helper()
	repotest.NeedsRedis(t)
	opt, err := redis.ParseURL(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// Two workers' periodic template syncs of one period make one sync in all,
// whoever comes first; the sync of one number asked for always runs; once
// the period's lease expires the next tick syncs again.
func TestTemplateSyncOncePerPeriodAcrossWorkers(t *testing.T) {
	queue := resttest.NewQueueName()
	const every = time.Hour
	workers := make([]*countingMeta, 2)
	syncs := make([]jobs.Meta, 2)
	for i := range workers {
		workers[i] = &countingMeta{}
		// Each worker process has a Redis client of its own.
		syncs[i] = jobs.LeasedTemplateSync(workers[i], jobs.TemplateSyncLease(leaseRedis(t), queue), every)
	}
	key := jobs.TemplateSyncLease(nil, queue).Key
	rdb := leaseRedis(t)
	t.Cleanup(func() { rdb.Del(context.Background(), key) })
	ctx := t.Context()

	total := func() int64 { return workers[0].all.Load() + workers[1].all.Load() }
	var wg sync.WaitGroup
	for range 3 { // several ticks of both workers within the period
		for _, s := range syncs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.SyncTemplates(ctx, "", ""); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if n := total(); n != 1 {
		t.Fatalf("%d periodic syncs in one period across two workers, want 1", n)
	}
	ttl := rdb.PTTL(ctx, key).Val()
	if ttl <= 0 || ttl > every {
		t.Fatalf("the lease expires in %s, want within the period (%s)", ttl, every)
	}

	for _, s := range syncs {
		if err := s.SyncTemplates(ctx, "ws_1", "acc_1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := workers[0].one.Load() + workers[1].one.Load(); n != 2 {
		t.Fatalf("%d syncs of one number asked for, want 2 (never leased)", n)
	}

	// The period ends: its lease expires.
	rdb.Del(ctx, key)
	for _, s := range syncs {
		if err := s.SyncTemplates(ctx, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := total(); n != 2 {
		t.Fatalf("%d periodic syncs after two periods, want 2", n)
	}
}

// Without Redis, every worker syncs, as without a lease.
func TestTemplateSyncWithoutRedis(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer down.Close()
	m := &countingMeta{}
	s := jobs.LeasedTemplateSync(m, jobs.TemplateSyncLease(down, "q"), time.Hour)
	if err := s.SyncTemplates(t.Context(), "", ""); err != nil {
		t.Fatal(err)
	}
	if m.all.Load() != 1 {
		t.Fatal("no sync without Redis")
	}
}
