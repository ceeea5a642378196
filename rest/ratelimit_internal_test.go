package rest

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/redis/go-redis/v9"
)

func TestSecondsPlural(t *testing.T) {
	for n, want := range map[int]string{1: "1 second", 2: "2 seconds", 0: "0 seconds", 60: "60 seconds"} {
		if got := seconds(n); got != want {
			t.Errorf("seconds(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestLocalLimiterWindows: the in-process limiter keeps redis_rate's GCRA
// (a burst as large as the rate), spends the second before the minute, and
// answers the smaller remainder or how long until one request is free.
func TestLocalLimiterWindows(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLocalLimiter(func() time.Time { return now })
	ctx := context.Background()
	// 2 per second, 3 per minute; each answer is of one window, the
	// tightest (Decision).
	for i, s := range []struct {
		advance time.Duration
		want    Decision
	}{
		// second: 1 left, whole in 500 ms; minute: 2 left.
		{0, Decision{Limit: 2, Remaining: 1, Reset: 500 * time.Millisecond}},
		{0, Decision{Limit: 2, Remaining: 0, Reset: time.Second}}, // second spent
		// Refused: one unit frees every 500 ms.
		{0, Decision{Limit: 2, Reset: time.Second, RetryAfter: 500 * time.Millisecond}},
		// Third of the minute: both windows have none left, and the
		// minute is the longer to be whole again.
		{500 * time.Millisecond, Decision{Limit: 3, Remaining: 0, Reset: 59500 * time.Millisecond}},
		// The minute is spent: one unit frees every 20 s, and three were
		// taken by t=0.5 s, so at t=1.5 s the next is 18.5 s away.
		{time.Second, Decision{Limit: 3, Reset: 58500 * time.Millisecond, RetryAfter: 18500 * time.Millisecond}},
	} {
		now = now.Add(s.advance)
		d, err := l.Allow(ctx, "key_a", 2, 3)
		if err != nil || d != s.want {
			t.Errorf("step %d: %+v err %v, want %+v", i, d, err, s.want)
		}
	}
	// Another key is not touched by key_a's spending.
	if d, _ := l.Allow(ctx, "key_b", 2, 3); d != (Decision{Limit: 2, Remaining: 1, Reset: 500 * time.Millisecond}) {
		t.Errorf("key_b: %+v, want 2, 1 left", d)
	}
	// The widget's per-minute limits are a namespace of their own.
	for i := 0; i < 2; i++ {
		if retry, err := l.AllowPerMinute(ctx, "key_a", 2); retry != 0 || err != nil {
			t.Fatalf("per-minute %d: retry %v err %v", i, retry, err)
		}
	}
	if retry, _ := l.AllowPerMinute(ctx, "key_a", 2); retry != 30*time.Second {
		t.Errorf("third of 2 per minute: retry %v, want 30s", retry)
	}
}

// TestLocalLimiterForgetsSpentKeys: keys whose window has passed are
// dropped, so a process that sees many keys during an outage does not
// keep them all.
func TestLocalLimiterForgetsSpentKeys(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLocalLimiter(func() time.Time { return now })
	for i := 0; i < pruneEvery-1; i++ {
		_, _ = l.Allow(context.Background(), string(rune('a'+i%26))+time.Duration(i).String(), 10, 100)
	}
	if len(l.tat) == 0 {
		t.Fatal("nothing kept")
	}
	now = now.Add(2 * time.Minute)
	_, _ = l.Allow(context.Background(), "fresh", 10, 100)
	if len(l.tat) != 2 { // fresh's second and minute
		t.Errorf("%d keys kept after the windows passed, want 2", len(l.tat))
	}
}

// TestRedisLimiterFallsBackWhileRedisIsDown: with nothing listening where
// Redis should be, decisions are made in the process with the same limits,
// Redis is tried again at most once per redisProbeEvery, and a decision
// Redis makes again ends the outage.
func TestRedisLimiterFallsBackWhileRedisIsDown(t *testing.T) {
	repotest.NeedsRedis(t)
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer dead.Close()
	l := NewRedisLimiter(dead)
	ctx := context.Background()
	var allowed, refused int
	for i := 0; i < 5; i++ {
		d, err := l.Allow(ctx, "key_x", 1000, 3)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if d.RetryAfter > 0 {
			refused++
			if d.RetryAfter > time.Minute || d.Limit != 3 {
				t.Errorf("request %d: %+v, want a wait within the minute of 3", i, d)
			}
			continue
		}
		if want := 2 - allowed; d.Remaining != want || d.Limit != 3 {
			t.Errorf("request %d: %+v, want %d of 3 left", i, d, want)
		}
		allowed++
	}
	if allowed != 3 || refused != 2 {
		t.Errorf("3 per minute with Redis down: %d allowed, %d refused", allowed, refused)
	}
	if !l.down.Load() {
		t.Error("the outage is not noted")
	}
	if l.useRedis() {
		t.Error("Redis is tried again within the probe interval")
	}
	if retry, err := l.AllowPerMinute(ctx, "ip:192.0.2.1", 1); retry != 0 || err != nil {
		t.Errorf("widget limit with Redis down: retry %v err %v", retry, err)
	}
	if retry, err := l.AllowPerMinute(ctx, "ip:192.0.2.1", 1); retry <= 0 || err != nil {
		t.Errorf("second of 1 per minute with Redis down: retry %v err %v, want a wait", retry, err)
	}

	opt, err := redis.ParseURL(repotest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	live := redis.NewClient(opt)
	defer live.Close()
	back := NewRedisLimiter(live)
	back.Prefix = "test:fallback:" + time.Now().Format("150405.000000000") + ":"
	back.down.Store(true)
	back.probeAt.Store(0) // the probe is due
	if _, err := back.Allow(ctx, "key_y", 10, 100); err != nil {
		t.Fatal(err)
	}
	if back.down.Load() {
		t.Error("a decision made in Redis does not end the outage")
	}
	if n, err := live.Exists(ctx, "rate:"+back.Prefix+"rl:s:key_y").Result(); err != nil || n != 1 {
		t.Errorf("the probe did not decide in Redis: %d %v", n, err)
	}
	live.Del(ctx, "rate:"+back.Prefix+"rl:s:key_y", "rate:"+back.Prefix+"rl:m:key_y")
}

// TestRedisLimiterOneScript: the per-second and per-minute windows are
// decided in one script with redis_rate's GCRA, and a request either window
// refuses spends from neither.
func TestRedisLimiterOneScript(t *testing.T) {
	repotest.NeedsRedis(t)
	opt, err := redis.ParseURL(repotest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	l := NewRedisLimiter(rdb)
	l.Prefix = "test:script:" + time.Now().Format("150405.000000000") + ":"
	ctx := context.Background()
	t.Cleanup(func() {
		keys, _ := rdb.Keys(ctx, "rate:"+l.Prefix+"*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})
	// 2 per second, 3 per minute: two go, the third waits for the second.
	// Each answer is the tightest window's: the second's while it has
	// fewer left, whole again 500 ms after each request.
	for i, want := range []int{1, 0} {
		d, err := l.Allow(ctx, "key_a", 2, 3)
		if err != nil || d.Remaining != want || d.RetryAfter != 0 || d.Limit != 2 ||
			d.Reset <= time.Duration(i)*500*time.Millisecond || d.Reset > time.Duration(i+1)*500*time.Millisecond {
			t.Fatalf("request %d: %+v err %v, want %d of 2 left", i, d, err, want)
		}
	}
	minute := "rate:" + l.Prefix + "rl:m:key_a"
	before, _ := rdb.Get(ctx, minute).Result()
	if d, err := l.Allow(ctx, "key_a", 2, 3); err != nil || d.RetryAfter <= 0 || d.RetryAfter > 500*time.Millisecond || d.Limit != 2 {
		t.Errorf("third in a second: %+v err %v, want a wait in (0, 500ms] of the second", d, err)
	}
	if after, _ := rdb.Get(ctx, minute).Result(); after != before {
		t.Errorf("a request the second refused spent from the minute: %s -> %s", before, after)
	}
	// 100 per second, 1 per minute: the minute refuses the second request,
	// which leaves the second window as it was.
	if d, err := l.Allow(ctx, "key_b", 100, 1); err != nil || d.RetryAfter != 0 || d.Limit != 1 || d.Remaining != 0 {
		t.Fatalf("key_b first: %+v err %v, want none of 1 left", d, err)
	}
	second := "rate:" + l.Prefix + "rl:s:key_b"
	before, _ = rdb.Get(ctx, second).Result()
	if d, err := l.Allow(ctx, "key_b", 100, 1); err != nil || d.RetryAfter < 59*time.Second || d.RetryAfter > time.Minute || d.Limit != 1 {
		t.Errorf("second of 1 per minute: %+v err %v, want about a minute", d, err)
	}
	if after, _ := rdb.Get(ctx, second).Result(); after != before {
		t.Errorf("a request the minute refused spent from the second: %s -> %s", before, after)
	}
	// No limit at all answers no remainder.
	if d, err := l.Allow(ctx, "key_c", 0, 0); err != nil || d != (Decision{}) {
		t.Errorf("no limits: %+v err %v", d, err)
	}
}

// TestLocalLimiterRefusalSpendsNothing: as in Redis, a request one window
// refuses spends from neither.
func TestLocalLimiterRefusalSpendsNothing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLocalLimiter(func() time.Time { return now })
	ctx := context.Background()
	if d, _ := l.Allow(ctx, "key_b", 100, 1); d.RetryAfter != 0 {
		t.Fatalf("first: %+v", d)
	}
	before := l.tat["s:key_b"]
	if d, _ := l.Allow(ctx, "key_b", 100, 1); d != (Decision{Limit: 1, Reset: time.Minute, RetryAfter: time.Minute}) {
		t.Errorf("second of 1 per minute: %+v, want a wait of 1m", d)
	}
	if after := l.tat["s:key_b"]; !after.Equal(before) {
		t.Errorf("the refused request spent from the second: %v -> %v", before, after)
	}
}
