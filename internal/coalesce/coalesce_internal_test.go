package coalesce

import (
	"context"
	"sync"
	"testing"
)

// testAnnouncer is an announcer whose rounds the test steps through: each
// round reports its start on started and waits for release; again answers
// the round's "again".
type testAnnouncer struct {
	*Coalescer
	started chan int
	release chan bool
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
