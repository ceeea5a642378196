package rest

import (
	"sync"
	"time"
)

// Leases. A process that sends Redis one decision per request spends a
// round trip and a script run on each; a key with high limits instead
// takes several requests in one decision and hands them out from memory.
// The size of a lease follows the key's pace in this process (doubling
// while a lease is used up within half of leaseFor, shrinking to what was
// used when one expires) and never passes leaseCap, so keys with the
// usual limits (20/s, 300/min) are decided one request at a time, exactly.
// What a lease holds when it expires stays spent: a key used from several
// processes at its limit may be refused up to leaseCap requests early.
const (
	// leaseFor is how long requests taken ahead of use are held.
	leaseFor = 100 * time.Millisecond
	// leaseMax bounds one lease.
	leaseMax = 1024
	// leaseIdle is how long an unused lease is kept in memory.
	leaseIdle = time.Minute
)

// leaseCap is how many requests one decision may take for a key: a tenth
// of a second's worth of its tighter limit (per second, or per minute
// spread over the minute), at most leaseMax, at least 1 (no lease).
func leaseCap(perSecond, perMinute int) int {
	c := leaseMax
	if perSecond > 0 {
		c = min(c, perSecond/10)
	}
	if perMinute > 0 {
		c = min(c, perMinute/600)
	}
	return max(c, 1)
}

// leases are the keys' leases of one process.
type leases struct {
	mu    sync.Mutex
	byKey map[string]*lease
	calls int
}

// of returns a key's lease, made empty when it has none; leases unused
// for leaseIdle are dropped now and then.
func (ls *leases) of(key string, now time.Time) *lease {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.byKey == nil {
		ls.byKey = map[string]*lease{}
	}
	if ls.calls++; ls.calls%pruneEvery == 0 {
		for k, l := range ls.byKey {
			if l.mu.TryLock() {
				if now.Sub(l.at) > leaseIdle {
					delete(ls.byKey, k)
				}
				l.mu.Unlock()
			}
		}
	}
	l := ls.byKey[key]
	if l == nil {
		l = &lease{}
		ls.byKey[key] = l
	}
	return l
}

// lease is a key's requests taken from Redis and not yet used. Its fields
// are guarded by mu, which Allow holds over the Redis decision too, so a
// key's requests in this process wait for one decision rather than each
// making its own.
type lease struct {
	mu sync.Mutex
	// perSecond and perMinute are the limits it was taken under.
	perSecond, perMinute int
	at                   time.Time // when it was taken
	taken, left          int       // requests taken, not yet used
	// last is Redis's answer for the last request taken; interval the
	// tightest window's period over its rate.
	last     Decision
	interval time.Duration
	want     int // how many the last decision asked for
}

// use hands out one request of the lease, if it holds one for these
// limits and has not expired.
func (l *lease) use(now time.Time, perSecond, perMinute int) (Decision, bool) {
	if l.left == 0 || l.perSecond != perSecond || l.perMinute != perMinute ||
		now.Before(l.at) || now.Sub(l.at) >= leaseFor {
		return Decision{}, false
	}
	l.left--
	return l.decision(now), true
}

// decision is the answer for the request just handed out: Redis's answer
// for the last request taken, as if the ones still held were not.
func (l *lease) decision(now time.Time) Decision {
	d := l.last
	d.Remaining += l.left
	d.Reset -= time.Duration(l.left)*l.interval + now.Sub(l.at)
	d.Reset = max(d.Reset, 0)
	return d
}

// size is how many requests the next decision asks for, at most most.
func (l *lease) size(now time.Time, most int) int {
	switch {
	case l.taken == 0:
		l.want = 1
	case l.left == 0 && now.Sub(l.at) < leaseFor/2:
		l.want *= 2
	case l.left > 0:
		l.want = l.taken - l.left
	}
	l.want = min(max(l.want, 1), most)
	return l.want
}

// took keeps n requests Redis spent under these limits at now, its answer
// d being the last one's, and answers the first of them, used at once.
func (l *lease) took(now time.Time, perSecond, perMinute int, d Decision, n int, period time.Duration) Decision {
	l.perSecond, l.perMinute, l.at = perSecond, perMinute, now
	l.taken, l.left, l.last = n, n-1, d
	l.interval = 0
	if d.Limit > 0 {
		l.interval = period / time.Duration(d.Limit)
	}
	return l.decision(now)
}

// forget empties the lease after a refusal or a decision made without
// Redis: the next decision starts from one request.
func (l *lease) forget() {
	l.taken, l.left = 0, 0
}
