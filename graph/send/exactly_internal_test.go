package send

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// shortWaits makes settleRetrying's waits tiny for the test.
func shortWaits(t *testing.T) {
	backoff, every := settleBackoff, backgroundEvery
	settleBackoff = []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}
	backgroundEvery = time.Millisecond
	t.Cleanup(func() { settleBackoff, backgroundEvery = backoff, every })
}

// A confirm (or release) that meets a database fault is tried again until
// it goes through; an API error is an answer and is not tried again.
func TestSettleRetryingRetriesFaultsNotDecisions(t *testing.T) {
	shortWaits(t)
	r := &Service{}
	calls := 0
	err := r.settleRetrying(context.Background(), "confirm", "msg_1", false, func(context.Context) error {
		if calls++; calls < 3 {
			return driver.ErrBadConn
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	decision := apierr.New(apierr.ChannelUnavailable, "settled otherwise")
	err = r.settleRetrying(context.Background(), "confirm", "msg_1", true, func(context.Context) error {
		calls++
		return decision
	})
	if !errors.Is(err, decision) || calls != 1 {
		t.Fatalf("err %v after %d calls, want the decision after 1", err, calls)
	}
}

// When every try in the request failed, the fault is answered and, with
// background set, the step goes on until it succeeds.
func TestSettleRetryingGoesOnInTheBackground(t *testing.T) {
	shortWaits(t)
	r := &Service{UnknownAfter: time.Minute}
	var calls atomic.Int32
	done := make(chan struct{})
	err := r.settleRetrying(context.Background(), "confirm", "msg_1", true, func(context.Context) error {
		n := calls.Add(1)
		switch {
		case n < 10:
			return driver.ErrBadConn
		case n == 10:
			close(done)
		}
		return nil
	})
	if !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("err %v, want the fault answered", err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the background stopped after %d tries", calls.Load())
	}
}
