package eventstream

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// countingStore is an idle outbox whose horizon is set by the test; it
// counts the statements.
type countingStore struct {
	horizon          uint64
	horizons, events int
}

func (s *countingStore) StreamHorizon(context.Context) (uint64, error) {
	s.horizons++
	return s.horizon, nil
}

func (s *countingStore) EventStreamPosition(context.Context, repo.Scope, string) (repo.StreamCursor, time.Time, error) {
	return repo.StreamCursor{}, time.Time{}, repo.ErrNotFound
}

func (s *countingStore) EventsForStream(context.Context, repo.Scope, repo.StreamCursor, uint64, repo.StreamFilter, int) ([]repo.StreamEvent, error) {
	s.events++
	return nil, nil
}

// TestIdleStreamsShareTheHorizon: 50 idle streams of a process polling
// three times at one instant cost one horizon read, and each reads its
// events only while the horizon is new to it; a horizon that moves (a
// poll interval later) is read once and sends each stream to its events.
func TestIdleStreamsShareTheHorizon(t *testing.T) {
	store := &countingStore{horizon: 1000}
	now := time.Unix(1_800_000_000, 0)
	shared := &SharedHorizon{Store: store, Clock: func() time.Time { return now }, Every: 300 * time.Millisecond}
	svc := &Service{Store: shared}
	streams := make([]*Stream, 50)
	for i := range streams {
		streams[i] = &Stream{svc: svc, cursor: repo.StreamCursor{XID: 1000}}
	}
	poll := func() {
		for _, st := range streams {
			if evs, err := st.read(context.Background(), 100); err != nil || len(evs) != 0 {
				t.Fatalf("read: %v, %v", evs, err)
			}
		}
	}
	for range 3 {
		poll()
	}
	if store.horizons != 1 || store.events != 50 {
		t.Fatalf("3 polls of 50 idle streams: %d horizon reads and %d event reads, want 1 and 50", store.horizons, store.events)
	}
	now = now.Add(300 * time.Millisecond)
	poll()
	if store.horizons != 2 || store.events != 50 {
		t.Fatalf("a poll later, horizon unmoved: %d horizon reads and %d event reads, want 2 and 50", store.horizons, store.events)
	}
	store.horizon = 1001
	now = now.Add(300 * time.Millisecond)
	poll()
	if store.horizons != 3 || store.events != 100 {
		t.Fatalf("the horizon moved: %d horizon reads and %d event reads, want 3 and 100", store.horizons, store.events)
	}
}
