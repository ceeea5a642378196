// Package gctune sets how far Go's heap grows between collections from the
// heap that lives: a serving process keeps a small heap (about 10 MB under
// load) and allocates fast, so at a fixed GOGC its collector runs dozens of
// times a second, and every collection costs the requests beside it (the
// marking, its write barriers, the sweeping). A small heap may therefore
// grow by Headroom between collections; a large one (widget sockets by the
// thousand) grows by Base percent, as it would at that fixed GOGC.
package gctune

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// Base is the GOGC of a heap of Headroom/2 or more live.
	Base = 200
	// Max bounds the GOGC of a very small heap.
	Max = 800
	// Headroom is what a small heap may grow by between collections.
	Headroom = 40 << 20
)

// Percent is the GOGC for a heap of live bytes: enough for it to grow by
// Headroom before the next collection, in steps of 100, at least Base and at
// most Max.
func Percent(live uint64) int {
	if live == 0 {
		return Max
	}
	p := Headroom * 100 / live
	p -= p % 100
	return int(max(Base, min(Max, p)))
}

// Run sets the collector's percent from the live heap now and then every
// interval, until ctx ends. Call it only when GOGC is not set: it replaces
// the operator's choice.
func Run(ctx context.Context, every time.Duration) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := -1
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		metrics.Read(live)
		if p := Percent(live[0].Value.Uint64()); p != set {
			debug.SetGCPercent(p)
			set = p
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
