package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// A failed Meta hook is tried again within seconds, growing to about 110 s
// over its 10 retries; other tasks keep asynq's delays.
func TestRetryDelay(t *testing.T) {
	hook := asynq.NewTask(TypeMetaHook, nil)
	var total time.Duration
	for n := range 10 {
		d := retryDelay(n, errors.New("early"), hook)
		if want := time.Duration(n+1) * 2 * time.Second; d != want {
			t.Errorf("retry %d of a meta hook: %v, want %v", n, d, want)
		}
		total += d
	}
	if total != 110*time.Second {
		t.Errorf("10 retries of a meta hook span %v, want 110s", total)
	}
	other := asynq.NewTask(TypeMetaHook+"x", nil)
	if d := retryDelay(0, errors.New("x"), other); d < 15*time.Second {
		t.Errorf("another task's first retry: %v, want asynq's (at least 15 s)", d)
	}
}
