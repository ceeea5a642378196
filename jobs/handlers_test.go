package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
)

// attempts records the deliveries it was asked to attempt.
type attempts []string

func (a *attempts) AttemptDelivery(_ context.Context, id string) error {
	*a = append(*a, id)
	return nil
}

// TestHandlers runs the task handlers over fakes, without Redis: a payload
// names what to work on, and one that cannot be read is never retried.
func TestHandlers(t *testing.T) {
	deliver, err := jobs.NewDeliverTask("whd_1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var a attempts
	tests := []struct {
		name     string
		handler  asynq.Handler
		task     *asynq.Task
		skip     bool
		got      func() []string
		wantCall string
	}{
		{"deliver", jobs.DeliverHandler(&a), deliver, false, func() []string { return a }, "whd_1"},
		{"deliver, bad payload", jobs.DeliverHandler(&a), asynq.NewTask(jobs.TypeWebhookDeliver, []byte("{")), true, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.handler.ProcessTask(context.Background(), tt.task)
			if got := errors.Is(err, asynq.SkipRetry); got != tt.skip {
				t.Fatalf("SkipRetry = %v, want %v (err %v)", got, tt.skip, err)
			}
			if tt.skip {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if calls := tt.got(); len(calls) == 0 || calls[len(calls)-1] != tt.wantCall {
				t.Errorf("calls = %v, want last %s", calls, tt.wantCall)
			}
		})
	}
}

// TestLegacySandboxTaskIsDropped: a per-message sandbox task an older
// version queued ("message:transition", with its payload) is acknowledged
// by the registered handlers, so asynq neither retries nor archives it; the
// batched pass completes its message from Postgres. A type nothing handles
// fails, and would be retried.
func TestLegacySandboxTaskIsDropped(t *testing.T) {
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{})
	legacy := asynq.NewTask("message:transition", []byte(`{"workspace_id":"ws_a","message_id":"msg_1"}`))
	if err := mux.ProcessTask(context.Background(), legacy); err != nil {
		t.Errorf("an older version's sandbox task: %v, want it acknowledged", err)
	}
	if err := mux.ProcessTask(context.Background(), asynq.NewTask("message:unknown", nil)); err == nil {
		t.Error("a task of no known type was acknowledged")
	}
}
