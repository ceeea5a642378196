package coalesce

import (
	"context"
	"sync"
	"testing"
	"time"
)

// testAnnouncer is an announcer whose rounds the test steps through: each
// round reports its start on started and waits for release; again answers
// the round's "again". Its spacing after rounds is none, unless the test
// sets spaced: then the spacing reports itself there and waits for it to
// be answered.
type testAnnouncer struct {
	*Coalescer
	started chan int
	release chan bool
	spaced  chan bool
	mu      sync.Mutex
	rounds  int
}

func newTestCoalescer() *testAnnouncer {
	ta := &testAnnouncer{started: make(chan int), release: make(chan bool)}
	ta.Coalescer = &Coalescer{signal: make(chan struct{}, 1),
		round: func(context.Context) bool {
			ta.mu.Lock()
			ta.rounds++
			n := ta.rounds
			ta.mu.Unlock()
			ta.started <- n
			return <-ta.release
		},
		pause: func(ctx context.Context) bool { return ctx.Err() == nil },
		space: func(context.Context, time.Time) {
			if ta.spaced != nil {
				ta.spaced <- true
				<-ta.spaced
			}
		},
	}
	return ta
}

// start runs the loop; the returned func stops it and waits for it.
func (ta *testAnnouncer) start(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { ta.Run(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}

func (ta *testAnnouncer) count() int {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	return ta.rounds
}

// A commit while a round runs (the round may have read before it) makes
// another round; any number of commits meanwhile make exactly one.
func TestCoalescerWakeDuringRoundMakesOneMoreRound(t *testing.T) {
	ta := newTestCoalescer()
	stop := ta.start(t)
	ta.Wake()
	if n := <-ta.started; n != 1 {
		t.Fatalf("round %d, want 1", n)
	}
	for range 5 {
		ta.Wake() // while round 1 runs
	}
	ta.release <- false
	if n := <-ta.started; n != 2 {
		t.Fatalf("round %d, want 2", n)
	}
	ta.release <- false
	stop()
	if n := ta.count(); n != 2 {
		t.Errorf("%d rounds, want 2: the wakes during round 1 make one round", n)
	}
}

// After a round the loop waits out the spacing before it starts another:
// wakes during the round or the spacing make one round, after it.
func TestCoalescerSpacesRounds(t *testing.T) {
	ta := newTestCoalescer()
	ta.spaced = make(chan bool)
	stop := ta.start(t)
	ta.Wake()
	<-ta.started
	ta.Wake() // while round 1 runs
	ta.release <- false
	<-ta.spaced // the spacing after round 1 has begun
	for range 5 {
		ta.Wake()
	}
	if n := ta.count(); n != 1 {
		t.Fatalf("%d rounds during the spacing, want 1", n)
	}
	ta.spaced <- true
	if n := <-ta.started; n != 2 {
		t.Fatalf("round %d after the spacing, want 2", n)
	}
	ta.release <- false
	<-ta.spaced
	ta.spaced <- true
	stop()
	if n := ta.count(); n != 2 {
		t.Errorf("%d rounds, want 2: the wakes during round 1 and its spacing make one round", n)
	}
}

// New's spacing waits from the start of the last round: none once that is
// Spacing ago, and it ends with ctx.
func TestNewSpacingCountsFromTheRoundStart(t *testing.T) {
	a := New(func(context.Context) bool { return false }, 0)
	done := make(chan struct{})
	go func() {
		a.space(context.Background(), time.Now().Add(-Spacing))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		a.space(ctx, time.Now().Add(time.Hour))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the spacing waited although the round began Spacing ago, or past its context's end")
	}
}

// A round that asks again (its task was running) is followed by another
// after the pause, with no new wake.
func TestCoalescerRoundAskingAgainRunsAgain(t *testing.T) {
	ta := newTestCoalescer()
	stop := ta.start(t)
	ta.Wake()
	<-ta.started
	ta.release <- true
	if n := <-ta.started; n != 2 {
		t.Fatalf("round %d, want 2", n)
	}
	ta.release <- false
	stop()
	if n := ta.count(); n != 2 {
		t.Errorf("%d rounds, want 2", n)
	}
}

// A round that keeps asking again stops after maxAgain more: the sweeps
// take over, and the next wake starts afresh.
func TestCoalescerAgainIsBounded(t *testing.T) {
	ta := newTestCoalescer()
	stop := ta.start(t)
	ta.Wake()
	for range maxAgain + 1 {
		<-ta.started
		ta.release <- true
	}
	ta.Wake()
	if n := <-ta.started; n != maxAgain+2 {
		t.Fatalf("round %d after a new wake, want %d", n, maxAgain+2)
	}
	ta.release <- false
	stop()
}

// A wake not yet taken when the loop stops still gets its round, so a
// graceful stop hands over what the last commits announced.
func TestCoalescerStopRunsPendingRound(t *testing.T) {
	ta := newTestCoalescer()
	ta.Wake() // before the loop runs: pending at the stop
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() {
		ta.Run(ctx)
		close(done)
	}()
	<-ta.started
	ta.release <- true // asking again does not keep a stopped loop going
	<-done
	if n := ta.count(); n != 1 {
		t.Errorf("%d rounds, want 1", n)
	}
}
