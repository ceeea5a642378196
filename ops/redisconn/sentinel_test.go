package redisconn

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/ops/redisconn/redistest"
	"github.com/redis/go-redis/v9"
)

// A Sentinel URL reaches the primary for go-redis's and asynq's clients;
// the replica is not ready; after the primary dies and the Sentinel
// promotes the replica, the same clients write to the new primary, which
// is ready, and Describe names another server (what makes a worker hand
// the queue every due webhook delivery again).
func TestSentinelFailover(t *testing.T) {
	server := redistest.ServerBin(t)
	sentinel, sentinelArgs := redistest.SentinelBin(t)
	ctx := context.Background()
	primaryPort, primary := redistest.Start(t, server, 0, "")
	replicaPort, _ := redistest.Start(t, server, 0, fmt.Sprintf("replicaof 127.0.0.1 %d\n", primaryPort))
	sentinelPort, _ := redistest.Start(t, sentinel, 0, fmt.Sprintf(`sentinel monitor tm 127.0.0.1 %d 1
sentinel down-after-milliseconds tm 500
sentinel failover-timeout tm 5000
`, primaryPort), sentinelArgs...)

	direct := func(port int) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
		t.Cleanup(func() { c.Close() })
		return c
	}
	// The replica has caught up once it holds what the primary wrote.
	if err := direct(primaryPort).Set(ctx, "synced", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	redistest.WaitFor(t, 10*time.Second, "the replica's sync", func() bool {
		return direct(replicaPort).Get(ctx, "synced").Val() == "1"
	})
	if err := Ready(ctx, direct(replicaPort)); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("the replica's readiness: %v, want ErrNotPrimary", err)
	}

	o, err := Parse(fmt.Sprintf("redis-sentinel://127.0.0.1:%d?master=tm", sentinelPort))
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

	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(sentinelPort)})
	defer sc.Close()
	redistest.WaitFor(t, 30*time.Second, "the Sentinel's promotion of the replica", func() bool {
		addr, err := sc.GetMasterAddrByName(ctx, "tm").Result()
		return err == nil && addr[1] == strconv.Itoa(replicaPort)
	})
	// The same clients follow: writes succeed on the new primary.
	redistest.WaitFor(t, 10*time.Second, "a write through the Sentinel after the failover", func() bool {
		return rdb.Set(ctx, "after", "1", 0).Err() == nil
	})
	if got := direct(replicaPort).Get(ctx, "after").Val(); got != "1" {
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
