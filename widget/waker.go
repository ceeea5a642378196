package widget

import (
	"context"
	"sync"
)

// Waker tells the hubs of commits without holding up the committing
// request: Committed sets a one-slot signal, and one goroutine publishes a
// wake-up for it. Commits while a wake-up is on its way make one more, not
// one each: the goroutine takes the signal before it publishes, so a commit
// after a publish started always causes another, and a hub woken checks
// every widget, whatever commit woke it. A wake-up lost (Redis away) is
// caught up by the hubs' periodic check.
type Waker struct {
	publish func(context.Context)
	signal  chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
	once    sync.Once
}

// NewWaker starts a waker over a publisher; Close stops it.
func NewWaker(p Publish) *Waker { return newWaker(p.Committed) }

func newWaker(publish func(context.Context)) *Waker {
	w := &Waker{publish: publish, signal: make(chan struct{}, 1), stop: make(chan struct{})}
	w.done.Go(w.run)
	return w
}

// Committed asks for a wake-up and returns at once.
func (w *Waker) Committed(context.Context) {
	select {
	case w.signal <- struct{}{}:
	default: // one is asked for already and not yet published
	}
}

func (w *Waker) run() {
	for {
		select {
		case <-w.signal:
			w.publish(context.Background())
		case <-w.stop:
			select {
			case <-w.signal:
				w.publish(context.Background())
			default:
			}
			return
		}
	}
}

// Close publishes a wake-up still asked for, then stops the waker.
func (w *Waker) Close() {
	w.once.Do(func() { close(w.stop) })
	w.done.Wait()
}
