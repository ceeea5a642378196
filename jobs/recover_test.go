package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
)

// TestRecover checks that a panicking task becomes an error naming the task
// type, and that the handler serves the next task as usual.
func TestRecover(t *testing.T) {
	calls := 0
	h := jobs.Recover(asynq.HandlerFunc(func(_ context.Context, t *asynq.Task) error {
		calls++
		switch string(t.Payload()) {
		case "boom":
			panic("boom")
		case "index":
			var s []int
			_ = s[len(t.Payload())] // a runtime error: index out of range
		}
		return nil
	}))
	tests := []struct {
		payload string
		wantErr string
	}{
		{"boom", "webhook:deliver: panic: boom"},
		{"index", "webhook:deliver: panic: runtime error: index out of range [5] with length 0"},
		{"fine", ""},
	}
	for _, tt := range tests {
		t.Run(tt.payload, func(t *testing.T) {
			err := h.ProcessTask(context.Background(), asynq.NewTask(jobs.TypeWebhookDeliver, []byte(tt.payload)))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, tt.wantErr) || (tt.wantErr == "") != (err == nil) {
				t.Errorf("err = %q, want prefix %q", got, tt.wantErr)
			}
		})
	}
	if got, want := calls, 3; got != want {
		t.Errorf("calls = %d, want %d", got, want)
	}
}
