package widget

import (
	"context"
	"sync"

	"github.com/msgsvc/msgsvc/internal/coalesce"
)

// Waker tells the hubs of commits without holding up the committing
// request: Committed wakes a coalesce.Coalescer whose rounds publish one
// wake-up each, so commits while a wake-up is on its way make one more,
// not one each, and a commit after a publish started always makes another.
// A hub woken checks every widget, whatever commit woke it; a wake-up lost
// (Redis away) is caught up by the hubs' periodic check.
type Waker struct {
	rounds *coalesce.Coalescer
	stop   context.CancelFunc
	done   sync.WaitGroup
}

// NewWaker starts a waker over a publisher; Close stops it.
func NewWaker(p Publish) *Waker { return newWaker(p.Committed) }

func newWaker(publish func(context.Context)) *Waker {
	w := &Waker{rounds: coalesce.New(func(ctx context.Context) bool { publish(ctx); return false }, 0)}
	ctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	w.done.Go(func() { w.rounds.Run(ctx) })
	return w
}

// Committed asks for a wake-up and returns at once.
func (w *Waker) Committed(context.Context) { w.rounds.Wake() }

// Close publishes a wake-up still asked for, then stops the waker.
func (w *Waker) Close() {
	w.stop()
	w.done.Wait()
}
