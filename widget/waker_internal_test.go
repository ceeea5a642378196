package widget

import (
	"context"
	"testing"
)

// TestWakerCoalescesWithoutMissing: commits while a wake-up is being
// published make exactly one more; a commit asked for before Close is
// still published.
func TestWakerCoalescesWithoutMissing(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	published := make(chan int, 10)
	n := 0
	w := newWaker(func(context.Context) {
		n++
		if n == 1 {
			started <- struct{}{}
			<-release // the first wake-up is on its way
		}
		published <- n
	})
	w.Committed(context.Background())
	<-started
	for range 5 { // committed while the first one is published
		w.Committed(context.Background())
	}
	close(release)
	if got := <-published; got != 1 {
		t.Fatalf("first wake-up %d", got)
	}
	if got := <-published; got != 2 {
		t.Fatalf("second wake-up %d", got)
	}
	w.Committed(context.Background())
	w.Close()
	close(published)
	var rest []int
	for p := range published {
		rest = append(rest, p)
	}
	if len(rest) != 1 || rest[0] != 3 {
		t.Errorf("after the burst: %v, want the one asked for before Close", rest)
	}
}
