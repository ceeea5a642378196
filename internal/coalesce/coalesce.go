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
}

// maxAgain bounds the rounds one wake makes while each asks again (a pass
// that keeps running while events keep coming, which sees them itself; a
// task held active by a dead worker): after about 2 s of asking, the
// sweeps catch up.
const maxAgain = 80

// New returns a coalescer of rounds; a round that answers true is
// run again after pause. Run drives it.
func New(round func(context.Context) bool, pause time.Duration) *Coalescer {
	return &Coalescer{signal: make(chan struct{}, 1), round: round, pause: func(ctx context.Context) bool {
		t := time.NewTimer(pause)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}}
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
		for n := 0; a.round(work); n++ {
			if n == maxAgain || !a.pause(ctx) {
				break
			}
		}
	}
}
