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
	type step struct {
		advance   time.Duration
		remaining int
		retry     time.Duration
	}
	// 2 per second, 3 per minute.
	for i, s := range []step{
		{0, 1, 0},                      // second: 1 left, minute: 2 left
		{0, 0, 0},                      // second spent
		{0, 0, 500 * time.Millisecond}, // refused: one unit frees every 500 ms
		{500 * time.Millisecond, 0, 0}, // third of the minute
		// The minute is spent: one unit frees every 20 s, and three were
		// taken by t=0.5 s, so at t=1.5 s the next is 18.5 s away.
		{time.Second, 0, 18500 * time.Millisecond},
	} {
		now = now.Add(s.advance)
		remaining, retry, err := l.Allow(ctx, "key_a", 2, 3)
		if err != nil || remaining != s.remaining || retry != s.retry {
			t.Errorf("step %d: remaining %d retry %v err %v, want %d %v", i, remaining, retry, err, s.remaining, s.retry)
		}
	}
	// Another key is not touched by key_a's spending.
	if remaining, retry, _ := l.Allow(ctx, "key_b", 2, 3); remaining != 1 || retry != 0 {
		t.Errorf("key_b: remaining %d retry %v, want 1 and 0", remaining, retry)
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
		_, _, _ = l.Allow(context.Background(), string(rune('a'+i%26))+time.Duration(i).String(), 10, 100)
	}
	if len(l.tat) == 0 {
		t.Fatal("nothing kept")
	}
	now = now.Add(2 * time.Minute)
	_, _, _ = l.Allow(context.Background(), "fresh", 10, 100)
	if len(l.tat) != 2 { // fresh's second and minute
		t.Errorf("%d keys kept after the windows passed, want 2", len(l.tat))
	}
}

// TestRedisLimiterFallsBackWhileRedisIsDown: with nothing listening where
// Redis should be, decisions are made in the process with the same limits,
// Redis is tried again at most once per redisProbeEvery, and a decision
// Redis makes again ends the outage.
func TestRedisLimiterFallsBackWhileRedisIsDown(t *testing.T) {
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer dead.Close()
	l := NewRedisLimiter(dead)
	ctx := context.Background()
	var allowed, refused int
	for i := 0; i < 5; i++ {
		remaining, retry, err := l.Allow(ctx, "key_x", 1000, 3)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if retry > 0 {
			refused++
			if retry > time.Minute {
				t.Errorf("request %d: retry %v beyond the minute", i, retry)
			}
			continue
		}
		if want := 2 - allowed; remaining != want {
			t.Errorf("request %d: remaining %d, want %d", i, remaining, want)
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
	if _, _, err := back.Allow(ctx, "key_y", 10, 100); err != nil {
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
	for i, want := range []int{1, 0} {
		if remaining, retry, err := l.Allow(ctx, "key_a", 2, 3); err != nil || remaining != want || retry != 0 {
			t.Fatalf("request %d: remaining %d retry %v err %v, want %d", i, remaining, retry, err, want)
		}
	}
	minute := "rate:" + l.Prefix + "rl:m:key_a"
	before, _ := rdb.Get(ctx, minute).Result()
	if _, retry, err := l.Allow(ctx, "key_a", 2, 3); err != nil || retry <= 0 || retry > 500*time.Millisecond {
		t.Errorf("third in a second: retry %v err %v, want (0, 500ms]", retry, err)
	}
	if after, _ := rdb.Get(ctx, minute).Result(); after != before {
		t.Errorf("a request the second refused spent from the minute: %s -> %s", before, after)
	}
	// 100 per second, 1 per minute: the minute refuses the second request,
	// which leaves the second window as it was.
	if _, retry, err := l.Allow(ctx, "key_b", 100, 1); err != nil || retry != 0 {
		t.Fatalf("key_b first: retry %v err %v", retry, err)
	}
	second := "rate:" + l.Prefix + "rl:s:key_b"
	before, _ = rdb.Get(ctx, second).Result()
	if _, retry, err := l.Allow(ctx, "key_b", 100, 1); err != nil || retry < 59*time.Second || retry > time.Minute {
		t.Errorf("second of 1 per minute: retry %v err %v, want about a minute", retry, err)
	}
	if after, _ := rdb.Get(ctx, second).Result(); after != before {
		t.Errorf("a request the minute refused spent from the second: %s -> %s", before, after)
	}
	// No limit at all answers no remainder.
	if remaining, retry, err := l.Allow(ctx, "key_c", 0, 0); err != nil || remaining != 0 || retry != 0 {
		t.Errorf("no limits: remaining %d retry %v err %v", remaining, retry, err)
	}
}

// TestLocalLimiterRefusalSpendsNothing: as in Redis, a request one window
// refuses spends from neither.
func TestLocalLimiterRefusalSpendsNothing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLocalLimiter(func() time.Time { return now })
	ctx := context.Background()
	if _, retry, _ := l.Allow(ctx, "key_b", 100, 1); retry != 0 {
		t.Fatalf("first: retry %v", retry)
	}
	before := l.tat["s:key_b"]
	if _, retry, _ := l.Allow(ctx, "key_b", 100, 1); retry != time.Minute {
		t.Errorf("second of 1 per minute: retry %v, want 1m", retry)
	}
	if after := l.tat["s:key_b"]; !after.Equal(before) {
		t.Errorf("the refused request spent from the second: %v -> %v", before, after)
	}
}
