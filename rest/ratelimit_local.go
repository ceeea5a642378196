package rest

import (
	"context"
	"math"
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

// Allow spends one request from the per-second and the per-minute window,
// as RedisLimiter.Allow does: a request either refuses spends from neither,
// and the answer is the tightest window's.
func (l *LocalLimiter) Allow(_ context.Context, keyID string, perSecond, perMinute int) (Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.prune(now)
	sec := l.check("s:"+keyID, perSecond, time.Second, now)
	minute := l.check("m:"+keyID, perMinute, time.Minute, now)
	if sec.retry > 0 || minute.retry > 0 {
		if minute.retry > sec.retry {
			sec = minute
		}
		return Decision{Limit: sec.rate, Reset: sec.reset, RetryAfter: sec.retry}, nil
	}
	l.commit(sec)
	l.commit(minute)
	if minute.remaining < sec.remaining || minute.remaining == sec.remaining && minute.reset > sec.reset {
		sec = minute
	}
	if sec.remaining == math.MaxInt {
		return Decision{}, nil // no limit at all
	}
	return Decision{Limit: sec.rate, Remaining: sec.remaining, Reset: sec.reset}, nil
}

// AllowPerMinute spends one unit of a per-minute limit, as
// RedisLimiter.AllowPerMinute does.
func (l *LocalLimiter) AllowPerMinute(_ context.Context, key string, perMinute int) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.prune(now)
	w := l.check("w:"+key, perMinute, time.Minute, now)
	if w.retry == 0 {
		l.commit(w)
	}
	return w.retry, nil
}

// spending is one unit of a window as check decided it.
type spending struct {
	key       string
	rate      int
	next      time.Time // the key's tat once spent; zero: no limit
	remaining int
	retry     time.Duration
	// reset is how long until the window is whole again: once spent when
	// allowed, as it stands when refused.
	reset time.Duration
}

// check decides one unit of rate per period from key (redis_rate's
// script, with cost 1) without spending it: the remainder, or how long
// until one unit is free. A rate of 0 or less is no limit. The caller
// holds mu.
func (l *LocalLimiter) check(key string, rate int, period time.Duration, now time.Time) spending {
	if rate <= 0 {
		return spending{key: key, remaining: math.MaxInt}
	}
	interval := period / time.Duration(rate)
	tat := l.tat[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	diff := now.Sub(next.Add(-interval * time.Duration(rate)))
	if diff < 0 {
		return spending{key: key, rate: rate, retry: -diff, reset: tat.Sub(now)}
	}
	return spending{key: key, rate: rate, next: next, remaining: int(diff / interval), reset: next.Sub(now)}
}

// commit spends what check allowed. The caller holds mu.
func (l *LocalLimiter) commit(s spending) {
	if !s.next.IsZero() {
		l.tat[s.key] = s.next
	}
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
