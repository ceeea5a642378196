package widget

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/redis/go-redis/v9"
)

// countingVisitors counts the checks that asked what changed.
type countingVisitors struct {
	fakeVisitors
	mu     sync.Mutex
	checks int
}

func (c *countingVisitors) Changed(ctx context.Context, since time.Time) ([]string, error) {
	c.mu.Lock()
	c.checks++
	c.mu.Unlock()
	return nil, nil
}

func (c *countingVisitors) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checks
}

// redisDB is a client of the tests' Redis server on database db.
func redisDB(t *testing.T, db int) *redis.Client {
	repotest.NeedsRedis(t)
	opt, err := redis.ParseURL(repotest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = db
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	return rdb
}

// until waits for cond, failing after a while (a hang, not a timing
// assertion).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// TestHubsOfTwoInstallationsDoNotWakeEachOther: two installations on one
// Redis server in different databases, with the default channel prefix:
// a commit of one wakes its own hubs and not the other's (pub/sub ignores
// the database; the prefix carries it).
func TestHubsOfTwoInstallationsDoNotWakeEachOther(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rdbA, rdbB := redisDB(t, 13), redisDB(t, 14)
	if ChannelPrefix(rdbA) == ChannelPrefix(rdbB) {
		t.Fatalf("one prefix %q for two databases", ChannelPrefix(rdbA))
	}
	va, vb := &countingVisitors{}, &countingVisitors{}
	a, b := &Hub{Visitors: va, Redis: rdbA, Every: time.Hour}, &Hub{Visitors: vb, Redis: rdbB, Every: time.Hour}
	subB := b.register(&repo.Visitor{ContactID: "ct_b", WebsiteID: "web_b"})
	a.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	for _, h := range []*Hub{a, b} {
		go h.Run(ctx)
	}
	until(t, "both hubs checked their new widget", func() bool { return va.count() == 1 && vb.count() == 1 })
	// Subscribed: a typing notice on b's own channel reaches its widget.
	pubA, pubB := Publish{Redis: rdbA}, Publish{Redis: rdbB}
	typing := func() {
		if err := pubB.Typing(ctx, Typing{From: "agent", ContactID: "ct_b", WebsiteID: "web_b"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-subB.out:
		case <-time.After(10 * time.Second):
			t.Fatal("hub b never heard its own channel")
		}
	}
	typing()
	until(t, "hub a subscribed", func() bool {
		n, _ := rdbA.PubSubNumSub(ctx, ChannelPrefix(rdbA)+"wake").Result()
		return n[ChannelPrefix(rdbA)+"wake"] >= 1
	})

	pubA.Committed(ctx)
	until(t, "installation a's commit woke hub a", func() bool { return va.count() == 2 })
	// Two of b's own notices later, b's loop has handled whatever came
	// before them: a wake-up heard from a would be checked or still queued.
	typing()
	typing()
	if vb.count() != 1 || len(b.wake) != 0 {
		t.Errorf("installation a's commit woke hub b: %d checks, %d queued", vb.count(), len(b.wake))
	}
	pubB.Committed(ctx)
	until(t, "installation b's commit woke hub b", func() bool { return vb.count() == 2 })
	if va.count() != 2 {
		t.Errorf("installation b's commit woke hub a: %d checks", va.count())
	}
}
