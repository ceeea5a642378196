package jobs

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The watch of the queue's Redis server says "changed" when another server
// answers (a failover, a restart, a primary turned replica), never for the
// first answer nor while the server cannot be asked.
func TestQueueWatch(t *testing.T) {
	var name string
	var err error
	w := &queueWatch{name: func(context.Context) (string, error) { return name, err }}
	ctx := context.Background()
	steps := []struct {
		name    string
		err     error
		changed bool
	}{
		{"run1 master", nil, false},        // the first answer
		{"run1 master", nil, false},        // the same server
		{"", errors.New("refused"), false}, // down: nothing known
		{"run1 master", nil, false},        // back, the same (its queue kept)
		{"run2 master", nil, true},         // another primary: a failover
		{"run2 slave", nil, true},          // demoted
		{"run2 slave", nil, false},         //
		{"run3 master", nil, true},         // restarted
	}
	for i, s := range steps {
		name, err = s.name, s.err
		if got, answered := w.check(ctx); got != s.changed || answered != (s.err == nil) {
			t.Errorf("step %d (%q, %v): changed %v, answered %v; want %v", i, s.name, s.err, got, answered, s.changed)
		}
	}
	if changed, answered := (&queueWatch{}).check(ctx); changed || !answered {
		t.Error("no watch said changed, or not answered")
	}
}

// Every due delivery is handed a task again when the queue's server
// changed, and when a hand-over failed, but only once the queue answers:
// a failed hand-over is remembered while it does not.
func TestResweepReasons(t *testing.T) {
	ctx := context.Background()
	var name string
	var down error
	var failed bool
	asked := 0
	s := Sweeps{Resweep: func(context.Context) error { return nil },
		HandOverFailed: func() bool { asked++; f := failed; failed = false; return f }}
	w := &queueWatch{name: func(context.Context) (string, error) { return name, down }}
	steps := []struct {
		name   string
		down   bool
		failed bool
		want   bool
	}{
		{"run1", false, false, false}, // the first answer
		{"run1", false, true, true},   // a hand-over failed
		{"run1", false, false, false}, // forgotten once resweeping
		{"run1", true, true, false},   // failed while the queue is down: wait
		{"run1", false, false, true},  // the queue answers: resweep then
		{"run2", false, false, true},  // a failover
	}
	for i, st := range steps {
		name, failed = st.name, failed || st.failed
		down = nil
		if st.down {
			down = errors.New("refused")
		}
		if got := s.resweep(ctx, w) != ""; got != st.want {
			t.Errorf("step %d %+v: resweep %v, want %v", i, st, got, st.want)
		}
	}
	if asked == 0 {
		t.Error("HandOverFailed never asked")
	}
	if (Sweeps{}).resweep(ctx, &queueWatch{}) != "" {
		t.Error("a resweep with no Resweep")
	}
}

// purgeRecorder records the cutoff of each purge.
type purgeRecorder struct{ before []time.Time }

func (p *purgeRecorder) PurgeIdempotencyKeys(_ context.Context, before time.Time) (int64, error) {
	p.before = append(p.before, before)
	return 0, nil
}

// An Idempotency-Key is purged once it is older than the 24 hours it is
// remembered, by the sweep's clock.
func TestIdempotencyPurgeCutoff(t *testing.T) {
	p := &purgeRecorder{}
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	if err := PurgeIdempotencyKeys(t.Context(), p, now); err != nil {
		t.Fatal(err)
	}
	if want := now.Add(-24 * time.Hour); len(p.before) != 1 || !p.before[0].Equal(want) {
		t.Errorf("purged before %v, want %v", p.before, want)
	}
}
