package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
)

// attempts records the deliveries it was asked to attempt, a task's at a
// time.
type attempts [][]string

func (a *attempts) AttemptDeliveries(_ context.Context, ids []string) error {
	*a = append(*a, ids)
	return nil
}

// TestHandlers runs the task handlers over fakes, without Redis: a payload
// names what to work on, and one that cannot be read is never retried. A
// task of several deliveries hands them all to one AttemptDeliveries; a
// task queued by the version before grouped tasks still names its one.
func TestHandlers(t *testing.T) {
	deliver, err := jobs.NewDeliverTask("whd_1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	group, err := jobs.NewDeliverGroupTask([]string{"whd_2", "whd_3", "whd_4"})
	if err != nil {
		t.Fatal(err)
	}
	old := asynq.NewTask(jobs.TypeWebhookDeliver, []byte(`{"delivery_id":"whd_old","not_before":"2020-01-02T03:04:05Z"}`))
	var a attempts
	lastTask := func() []string { return a[len(a)-1] }
	tests := []struct {
		name     string
		handler  asynq.Handler
		task     *asynq.Task
		skip     bool
		got      func() []string
		wantCall []string
	}{
		{"deliver", jobs.DeliverHandler(&a), deliver, false, lastTask, []string{"whd_1"}},
		{"deliver, a group", jobs.DeliverHandler(&a), group, false, lastTask, []string{"whd_2", "whd_3", "whd_4"}},
		{"deliver, the previous version's payload", jobs.DeliverHandler(&a), old, false, lastTask, []string{"whd_old"}},
		{"deliver, bad payload", jobs.DeliverHandler(&a), asynq.NewTask(jobs.TypeWebhookDeliver, []byte("{")), true, nil, nil},
		{"deliver, no delivery", jobs.DeliverHandler(&a), asynq.NewTask(jobs.TypeWebhookDeliver, []byte(`{"more_delivery_ids":["whd_5"]}`)), true, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := len(a)
			err := tt.handler.ProcessTask(context.Background(), tt.task)
			if got := errors.Is(err, asynq.SkipRetry); got != tt.skip {
				t.Fatalf("SkipRetry = %v, want %v (err %v)", got, tt.skip, err)
			}
			if tt.skip {
				if len(a) != calls {
					t.Errorf("a bad payload was worked on: %v", a)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != calls+1 || !slices.Equal(tt.got(), tt.wantCall) {
				t.Errorf("calls %v, want one more, of %v", a, tt.wantCall)
			}
		})
	}
}

// failing fails the attempts of the deliveries it names.
type failing map[string]bool

func (f failing) AttemptDeliveries(_ context.Context, ids []string) error {
	var errs []error
	for _, id := range ids {
		if f[id] {
			errs = append(errs, errors.New("attempt "+id+": the database failed"))
		}
	}
	return errors.Join(errs...)
}

// TestDeliverHandlerReturnsADeliverysError: the failure of one delivery of
// a task fails the task, for Observe to log; it is no SkipRetry, and none is
// needed, as delivery tasks are enqueued with no asynq retries (MaxRetry(0))
// and each delivery's retry lives in Postgres.
func TestDeliverHandlerReturnsADeliverysError(t *testing.T) {
	task, err := jobs.NewDeliverGroupTask([]string{"whd_ok", "whd_bad"})
	if err != nil {
		t.Fatal(err)
	}
	err = jobs.DeliverHandler(failing{"whd_bad": true}).ProcessTask(context.Background(), task)
	if err == nil || !strings.Contains(err.Error(), "attempt whd_bad: the database failed") {
		t.Errorf("handler error %v, want whd_bad's", err)
	}
}

// TestDeliverPayloadShapes: a task of one delivery is exactly what the
// version before grouped tasks queued, so a worker of either version runs
// the other's; that version reads the first delivery of a group.
func TestDeliverPayloadShapes(t *testing.T) {
	one, err := jobs.NewDeliverTask("whd_1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(one.Payload()), `{"delivery_id":"whd_1"}`; got != want {
		t.Errorf("task of one: %s, want %s", got, want)
	}
	group, err := jobs.NewDeliverGroupTask([]string{"whd_1"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(group.Payload(), one.Payload()) {
		t.Errorf("group of one: %s, want %s", group.Payload(), one.Payload())
	}
	several, err := jobs.NewDeliverGroupTask([]string{"whd_1", "whd_2"})
	if err != nil {
		t.Fatal(err)
	}
	var previous struct {
		DeliveryID string    `json:"delivery_id"`
		NotBefore  time.Time `json:"not_before,omitzero"`
	}
	if err := json.Unmarshal(several.Payload(), &previous); err != nil || previous.DeliveryID != "whd_1" {
		t.Errorf("the previous version reads %s as %+v (%v), want whd_1", several.Payload(), previous, err)
	}
	if _, err := jobs.NewDeliverGroupTask(nil); err == nil {
		t.Error("a task of no deliveries was made")
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
