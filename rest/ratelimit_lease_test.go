package rest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/redis/go-redis/v9"
)

func TestLeaseCap(t *testing.T) {
	for _, c := range []struct{ perSecond, perMinute, want int }{
		{20, 300, 1},    // the usual limits: one request at a time
		{100, 6000, 10}, // a tenth of a second of either
		{100, 600, 1},   // the minute is the tighter
		{1000, 0, 100},  // no per-minute limit
		{0, 60000, 100}, // no per-second limit
		{1000000, 100000000, leaseMax},
	} {
		if got := leaseCap(c.perSecond, c.perMinute); got != c.want {
			t.Errorf("leaseCap(%d, %d) = %d, want %d", c.perSecond, c.perMinute, got, c.want)
		}
	}
}

// TestLeaseSizeFollowsThePace: a lease used up within half of leaseFor
// doubles the next, one that expires shrinks it to what was used, and a
// lease is never larger than the cap.
func TestLeaseSizeFollowsThePace(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var l lease
	if n := l.size(at, 100); n != 1 {
		t.Fatalf("first size %d, want 1", n)
	}
	d := Decision{Limit: 1000, Remaining: 990, Reset: 10 * time.Millisecond}
	for _, want := range []int{2, 4, 8, 16, 32, 64, 100, 100} {
		l.took(at, 1000, 0, d, l.want, time.Second)
		for l.left > 0 {
			if _, ok := l.use(at, 1000, 0); !ok {
				t.Fatal("a request held is not handed out")
			}
		}
		if n := l.size(at.Add(leaseFor/4), 100); n != want {
			t.Fatalf("after a lease used up quickly: size %d, want %d", n, want)
		}
	}
	l.took(at, 1000, 0, d, 100, time.Second)
	for range 29 {
		l.use(at, 1000, 0)
	}
	if _, ok := l.use(at.Add(leaseFor), 1000, 0); ok {
		t.Error("an expired lease handed out a request")
	}
	if n := l.size(at.Add(leaseFor), 100); n != 30 {
		t.Errorf("after a lease expired with 30 of 100 used: size %d, want 30", n)
	}
	l.took(at, 1000, 0, d, 30, time.Second)
	if _, ok := l.use(at, 2000, 0); ok {
		t.Error("a lease taken under other limits handed out a request")
	}
}

// TestLeaseAnswersAsIfUnusedWereNotTaken: each request of a lease is
// answered as the limiter would have answered it alone: the remainder one
// less each time, the reset one interval shorter.
func TestLeaseAnswersAsIfUnusedWereNotTaken(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var l lease
	// 4 taken of 100/s: after them 90 left and the window whole in 100 ms.
	first := l.took(at, 100, 0, Decision{Limit: 100, Remaining: 90, Reset: 100 * time.Millisecond}, 4, time.Second)
	if want := (Decision{Limit: 100, Remaining: 93, Reset: 70 * time.Millisecond}); first != want {
		t.Errorf("first: %+v, want %+v", first, want)
	}
	for i, want := range []Decision{
		{Limit: 100, Remaining: 92, Reset: 75 * time.Millisecond},
		{Limit: 100, Remaining: 91, Reset: 85 * time.Millisecond},
		{Limit: 100, Remaining: 90, Reset: 95 * time.Millisecond},
	} {
		d, ok := l.use(at.Add(5*time.Millisecond), 100, 0)
		if !ok || d != want {
			t.Errorf("request %d of the lease: %+v %v, want %+v", i+2, d, ok, want)
		}
	}
	if _, ok := l.use(at, 100, 0); ok {
		t.Error("a fifth request from a lease of 4")
	}
}

// TestRedisLimiterLeases: a key with high limits takes its requests from
// Redis several at a time, each answered as if alone; near its limit it is
// refused exactly where one-at-a-time decisions refuse it; keys with the
// usual limits make one decision per request.
func TestRedisLimiterLeases(t *testing.T) {
	repotest.NeedsRedis(t)
	opt, err := redis.ParseURL(repotest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	var decisions atomic.Int64
	rdb.AddHook(countScripts{&decisions})
	l := NewRedisLimiter(rdb)
	l.Prefix = "test:lease:" + time.Now().Format("150405.000000000") + ":"
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	ctx := context.Background()
	t.Cleanup(func() {
		keys, _ := rdb.Keys(ctx, "rate:"+l.Prefix+"*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})

	// 10,000/s and no minute limit: 300 requests within a lease's time,
	// each left with what it would be left with alone: 9,999 - i, plus
	// what Redis's clock gave back meanwhile (one unit per 100 µs), less
	// one for the float rounding of the script's GCRA.
	start := time.Now()
	for i := range 300 {
		d, err := l.Allow(ctx, "key_fast", 10000, 0)
		if err != nil || d.RetryAfter != 0 || d.Limit != 10000 {
			t.Fatalf("request %d: %+v %v", i, d, err)
		}
		back := int(time.Since(start) / (100 * time.Microsecond))
		if d.Remaining < 9999-i-1 || d.Remaining > 9999-i+back {
			t.Fatalf("request %d: %d left, want %d (up to %d more)", i, d.Remaining, 9999-i, back)
		}
	}
	if n := decisions.Load(); n > 10 {
		t.Errorf("300 requests made %d decisions in Redis, want at most 10 (leases 1, 2, 4, ... 256)", n)
	}

	// 100/s: leases of at most 10; 150 requests at once are allowed 100
	// times (and the few Redis's clock gives back meanwhile).
	decisions.Store(0)
	start = time.Now()
	var allowed int
	for range 150 {
		d, err := l.Allow(ctx, "key_near", 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.RetryAfter == 0 {
			allowed++
		}
	}
	extra := int(time.Since(start)/(10*time.Millisecond)) + 1
	if allowed < 100 || allowed > 100+extra {
		t.Errorf("100/s: %d of 150 allowed, want 100 (up to %d more for time passed)", allowed, extra)
	}

	// 8 clients of one key at once share its leases: every request is
	// answered, far fewer decisions than requests.
	decisions.Store(0)
	var wg sync.WaitGroup
	var refused atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 200 {
				d, err := l.Allow(ctx, "key_shared", 100000, 0)
				if err != nil || d.RetryAfter != 0 {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n, r := decisions.Load(), refused.Load(); r != 0 || n > 200 {
		t.Errorf("1,600 requests from 8 clients at 100,000/s: %d refused or failed, %d decisions", r, n)
	}

	// The usual limits: a decision per request.
	decisions.Store(0)
	for range 5 {
		if _, err := l.Allow(ctx, "key_usual", 20, 300); err != nil {
			t.Fatal(err)
		}
	}
	if n := decisions.Load(); n != 5 {
		t.Errorf("5 requests at 20/s, 300/min made %d decisions, want 5", n)
	}
}

// countScripts counts the scripts a Redis client runs.
type countScripts struct{ n *atomic.Int64 }

func (c countScripts) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c countScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (c countScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
