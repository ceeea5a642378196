package gctune

import (
	"context"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, Max},             // nothing measured yet
		{1 << 20, Max},       // 1 MB: 4,000 % would do; at most Max
		{9 << 20, 400},       // a serving process under load: 444 %, in steps of 100
		{10 << 20, 400},      // exactly Headroom's 400 %
		{16 << 20, 200},      // 250 %, in steps of 100: Base
		{Headroom / 2, Base}, // from here on, Base
		{1 << 30, Base},      // thousands of widget sockets
	} {
		if got := Percent(c.live); got != c.want {
			t.Errorf("Percent(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// Run applies Percent of the live heap at once.
func TestRunSetsThePercent(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Run(ctx, time.Hour)
		close(done)
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		got := debug.SetGCPercent(100) // the percent now (100 until Run sets its own)
		if got != 100 {
			if got < Base || got > Max {
				t.Errorf("GOGC %d, want within [%d, %d]", got, Base, Max)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Run set no percent within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
