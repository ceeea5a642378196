package jobs

import (
	"context"
	"errors"
	"testing"
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
		if got := w.changed(ctx); got != s.changed {
			t.Errorf("step %d (%q, %v): changed %v, want %v", i, s.name, s.err, got, s.changed)
		}
	}
	if (&queueWatch{}).changed(ctx) {
		t.Error("no watch said changed")
	}
}
