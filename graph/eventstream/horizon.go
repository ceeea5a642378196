package eventstream

import (
	"context"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/internal/clock"
)

// SharedHorizon is a Store whose horizon reads are shared by every stream
// of the process: at most one read per Every, each stream taking the last
// one. An older horizon is still a safe one (every transaction below it
// has ended), so a stream only sees its events up to Every later.
type SharedHorizon struct {
	Store
	Clock clock.Clock
	Every time.Duration

	mu    sync.Mutex
	at    time.Time
	value uint64
}

// StreamHorizon is the last horizon read within Every, or a new read.
func (h *SharedHorizon) StreamHorizon(ctx context.Context) (uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.Clock.Now()
	if !h.at.IsZero() && now.Sub(h.at) < h.Every {
		return h.value, nil
	}
	v, err := h.Store.StreamHorizon(ctx)
	if err != nil {
		return 0, err
	}
	h.value, h.at = v, now
	return v, nil
}
