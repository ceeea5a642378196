package rest

import (
	"context"
	"sync"
	"time"
)

// LocalLimiter keeps GCRA limits in this process's memory: the algorithm
// and limits of redis_rate (a burst as large as the rate), for when Redis
// does not answer. Each process counts on its own, so n processes let a key
// through up to n times its limit.
type LocalLimiter struct {
	now func() time.Time

	mu sync.Mutex
	// tat is each key's theoretical arrival time; a key whose tat has
	// passed is as good as new and is dropped now and then.
	tat   map[string]time.Time
	calls int
}

// pruneEvery is how many decisions pass between drops of spent keys.
const pruneEvery = 1024

// NewLocalLimiter returns an empty limiter over a clock.
func NewLocalLimiter(now func() time.Time) *LocalLimiter {
	return &LocalLimiter{now: now, tat: map[string]time.Time{}}
}

// Allow spends one request from the per-second window, then the per-minute
// one, as RedisLimiter.Allow does.
func (l *LocalLimiter) Allow(_ context.Context, keyID string, perSecond, perMinute int) (int, time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	inSecond, retry := l.spend("s:"+keyID, perSecond, time.Second)
	if retry > 0 {
		return 0, retry, nil
	}
	inMinute, retry := l.spend("m:"+keyID, perMinute, time.Minute)
	if retry > 0 {
		return 0, retry, nil
	}
	return min(inSecond, inMinute), 0, nil
}

// AllowPerMinute spends one unit of a per-minute limit, as
// RedisLimiter.AllowPerMinute does.
func (l *LocalLimiter) AllowPerMinute(_ context.Context, key string, perMinute int) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, retry := l.spend("w:"+key, perMinute, time.Minute)
	return retry, nil
}

// spend takes one unit of rate per period from key: the remainder, or how
// long until one unit is free (redis_rate's script, with cost 1). The
// caller holds mu.
func (l *LocalLimiter) spend(key string, rate int, period time.Duration) (remaining int, retryAfter time.Duration) {
	if rate <= 0 {
		return 0, 0
	}
	now := l.now()
	l.prune(now)
	interval := period / time.Duration(rate)
	tat := l.tat[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	allowAt := next.Add(-interval * time.Duration(rate))
	diff := now.Sub(allowAt)
	if diff < 0 {
		return 0, -diff
	}
	l.tat[key] = next
	return int(diff / interval), 0
}

func (l *LocalLimiter) prune(now time.Time) {
	l.calls++
	if l.calls%pruneEvery != 0 {
		return
	}
	for k, tat := range l.tat {
		if !tat.After(now) {
			delete(l.tat, k)
		}
	}
}
