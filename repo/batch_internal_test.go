package repo

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// gatedRuns is a batcher's run that records each batch and, while gate is
// open, waits for it to be closed before answering.
type gatedRuns struct {
	t       *testing.T
	gate    chan struct{}
	started chan []int
	err     error

	mu      sync.Mutex
	batches [][]int
}

func newGatedRuns(t *testing.T) *gatedRuns {
	return &gatedRuns{t: t, gate: make(chan struct{}), started: make(chan []int, 100)}
}

func (g *gatedRuns) run(_ context.Context, ins []int) ([]int, error) {
	if len(ins) == 0 {
		g.t.Error("an execution with no input")
	}
	g.mu.Lock()
	g.batches = append(g.batches, slices.Clone(ins))
	g.mu.Unlock()
	g.started <- ins
	<-g.gate
	outs := make([]int, len(ins))
	for i, in := range ins {
		outs[i] = in * 10
	}
	return outs, g.err
}

// waitFor waits until n calls are waiting for an execution.
func waitFor[In, Out any](t *testing.T, b *batcher[In, Out], n int) {
	t.Helper()
	for range 1000 {
		if b.waitingCalls() == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d calls never waited", n)
}

// call runs in on b in a goroutine and returns what it answers, when it
// does.
func call(b *batcher[int, int], in int) <-chan batchResult[int] {
	done := make(chan batchResult[int], 1)
	go func() {
		out, err := b.do(context.Background(), in)
		done <- batchResult[int]{out, err}
	}()
	return done
}

// TestBatcherCombinesTheCallsThatWait: the first batchRuns calls each run
// at once, alone; the calls that come while those run wait and then go in
// one execution together, each answered its own output.
func TestBatcherCombinesTheCallsThatWait(t *testing.T) {
	g := newGatedRuns(t)
	b := &batcher[int, int]{run: g.run}
	var answers []<-chan batchResult[int]
	for i := range batchRuns {
		answers = append(answers, call(b, i+1))
		if got := <-g.started; len(got) != 1 {
			t.Fatalf("call %d ran in %v, want alone", i+1, got)
		}
	}
	for i := range 5 {
		answers = append(answers, call(b, 100+i))
	}
	waitFor(t, b, 5)
	close(g.gate)
	for i, a := range answers {
		in := i + 1
		if i >= batchRuns {
			in = 100 + i - batchRuns
		}
		if r := <-a; r.err != nil || r.out != in*10 {
			t.Errorf("call %d answered %d, %v; want %d", in, r.out, r.err, in*10)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.batches) != batchRuns+1 {
		t.Fatalf("executions %v, want %d alone and one of the 5 that waited", g.batches, batchRuns)
	}
	last := g.batches[batchRuns]
	slices.Sort(last)
	if !slices.Equal(last, []int{100, 101, 102, 103, 104}) {
		t.Errorf("the last execution carried %v, want the 5 calls that waited", last)
	}
}

// TestBatcherAnswersEveryCallItsExecutionsError: an execution's error is
// the answer of every call it carried.
func TestBatcherAnswersEveryCallItsExecutionsError(t *testing.T) {
	g := newGatedRuns(t)
	g.err = errors.New("connection lost")
	b := &batcher[int, int]{run: g.run}
	var answers []<-chan batchResult[int]
	for i := range batchRuns {
		answers = append(answers, call(b, i))
		<-g.started
	}
	answers = append(answers, call(b, 7), call(b, 8))
	waitFor(t, b, 2)
	close(g.gate)
	for _, a := range answers {
		if r := <-a; !errors.Is(r.err, g.err) {
			t.Errorf("a call answered %v, want the execution's error", r.err)
		}
	}
}

// TestBatcherRunsALoneCallAtOnce: with nothing running, a call is an
// execution of its own, and after it nothing is left running.
func TestBatcherRunsALoneCallAtOnce(t *testing.T) {
	runs := 0
	b := &batcher[int, int]{run: func(_ context.Context, ins []int) ([]int, error) {
		runs++
		return []int{ins[0] + 1}, nil
	}}
	for i := range 3 {
		if out, err := b.do(t.Context(), i); err != nil || out != i+1 {
			t.Fatalf("do(%d) = %d, %v", i, out, err)
		}
	}
	if runs != 3 || b.running != 0 || len(b.waiting) != 0 {
		t.Errorf("%d executions, %d running, %d waiting; want 3, 0, 0", runs, b.running, len(b.waiting))
	}
}

// TestBatcherOutlivesTheLeadersContext: an execution carrying other calls
// is not cut short when the context of the call that started it ends.
func TestBatcherOutlivesTheLeadersContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	b := &batcher[int, int]{run: func(ctx context.Context, ins []int) ([]int, error) {
		return []int{ins[0]}, ctx.Err()
	}}
	if out, err := b.do(ctx, 4); err != nil || out != 4 {
		t.Errorf("do with an ended context = %d, %v; want 4, nil", out, err)
	}
}
