// Package coalesce runs work in rounds on a one-slot signal, so that any
// number of wake-ups while a round runs make one more round.
package coalesce

import (
	"context"
	"time"
)

// Coalescer runs rounds in the background on a one-slot signal: Wake never
// blocks, and wakes while a round runs make one more round, not one each.
// The loop takes the signal before it starts a round, so a wake after a
// round started always makes another: no wake-up is missed. The jobs
// client's announcements are one; the widget hubs' wake-ups another.
type Coalescer struct {
	signal chan struct{}
	// round does the work; again asks for another round after pause (the
	// work could not be done now, but can be soon).
	round func(ctx context.Context) (again bool)
	// pause waits before a round that asked again; false when ctx ended.
	pause func(ctx context.Context) bool
	// space waits, after rounds that began at a time, until the next may
	// begin (Spacing); it returns early when ctx ends.
	space func(ctx context.Context, began time.Time)
}

// Spacing is the least time from the start of one round to the start of the
// next that New gives, so that under a stream of wakes (a commit every
// half millisecond) rounds come at most 200 times a second, each covering
// the wakes since the last, rather than back to back, each a Redis round
// trip of its own: the wake that waits longest waits this long. A wake after
// a quiet moment starts its round at once.
const Spacing = 5 * time.Millisecond

// maxAgain bounds the rounds one wake makes while each asks again (a pass
// that keeps running while events keep coming, which sees them itself; a
// task held active by a dead worker): after about 2 s of asking, the
// sweeps catch up.
const maxAgain = 80

// New returns a coalescer of rounds; a round that answers true is
// run again after pause. Run drives it.
func New(round func(context.Context) bool, pause time.Duration) *Coalescer {
	return &Coalescer{signal: make(chan struct{}, 1), round: round,
		pause: func(ctx context.Context) bool { return sleep(ctx, pause) },
		space: func(ctx context.Context, began time.Time) { sleep(ctx, Spacing-time.Since(began)) }}
}

// sleep waits d, or until ctx ends (false then).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Wake asks for a round and returns at once.
func (a *Coalescer) Wake() {
	select {
	case a.signal <- struct{}{}:
	default: // a round is asked for already, and has not started
	}
}

// Run does rounds until ctx ends; a wake still pending then gets one last
// round, so a graceful stop hands over what the last commits announced. A
// round runs to its end (each enqueue is bounded): ctx ending stops the
// loop between rounds, never halfway through one.
func (a *Coalescer) Run(ctx context.Context) {
	work := context.WithoutCancel(ctx)
	for {
		select {
		case <-a.signal:
		case <-ctx.Done():
			select {
			case <-a.signal:
				a.round(work)
			default:
			}
			return
		}
		began := time.Now()
		for n := 0; a.round(work); n++ {
			if n == maxAgain || !a.pause(ctx) {
				break
			}
		}
		// Wakes while the round ran, or while this waits, make one round
		// after it.
		a.space(ctx, began)
	}
}
