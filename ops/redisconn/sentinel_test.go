package redisconn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/ops/redisconn/redistest"
)

// A Sentinel URL reaches the primary for go-redis's and asynq's clients;
// the replica is not ready; after the primary dies and the Sentinel
// promotes the replica, the same clients write to the new primary, which
// is ready, and Describe names another server (what makes a worker hand
// the queue every due webhook delivery again).
func TestSentinelFailover(t *testing.T) {
	ctx := context.Background()
	g := redistest.StartGroup(t, 3, 500*time.Millisecond)
	if err := Ready(ctx, redistest.Direct(t, g.ReplicaPort)); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("the replica's readiness: %v, want ErrNotPrimary", err)
	}

	o, err := Parse(g.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := o.Client()
	defer rdb.Close()
	if err := Ready(ctx, rdb); err != nil {
		t.Fatalf("readiness through the Sentinel: %v", err)
	}
	before, err := Describe(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	jobs := asynq.NewClient(o.Asynq())
	defer jobs.Close()
	if _, err := jobs.Enqueue(asynq.NewTask("probe", nil), asynq.Queue("sentinel_test")); err != nil {
		t.Fatalf("enqueue through the Sentinel: %v", err)
	}

	if err := g.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
	g.WaitPromoted(t, 30*time.Second)
	// The same clients follow: writes succeed on the new primary.
	redistest.WaitFor(t, 10*time.Second, "a write through the Sentinel after the failover", func() bool {
		return rdb.Set(ctx, "after", "1", 0).Err() == nil
	})
	if got := redistest.Direct(t, g.ReplicaPort).Get(ctx, "after").Val(); got != "1" {
		t.Fatalf("the write after the failover is not on the promoted replica (%q)", got)
	}
	if _, err := jobs.Enqueue(asynq.NewTask("probe", nil), asynq.Queue("sentinel_test")); err != nil {
		t.Fatalf("enqueue after the failover: %v", err)
	}
	if err := Ready(ctx, rdb); err != nil {
		t.Fatalf("readiness after the failover: %v", err)
	}
	after, err := Describe(ctx, rdb)
	if err != nil || after.RunID == before.RunID || after.Role != "master" {
		t.Fatalf("server before %+v, after %+v (%v): want another primary", before, after, err)
	}
}
