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

// finishes records the sandbox messages it was asked to finish.
type finishes []string

func (f *finishes) FinishSandboxDelivery(_ context.Context, workspaceID, messageID string) error {
	*f = append(*f, workspaceID+"/"+messageID)
	return nil
}

// TestHandlers runs the task handlers over fakes, without Redis: a payload
// names what to work on, and one that cannot be read is never retried.
func TestHandlers(t *testing.T) {
	deliver, err := jobs.NewDeliverTask("whd_1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := jobs.NewSandboxDeliveryTask("ws_a", "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	var a attempts
	var f finishes
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
		{"sandbox", jobs.SandboxHandler(&f), sandbox, false, func() []string { return f }, "ws_a/msg_1"},
		{"sandbox, bad payload", jobs.SandboxHandler(&f), asynq.NewTask(jobs.TypeSandboxDelivery, []byte("[]")), true, nil, ""},
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
