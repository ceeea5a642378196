package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

type countingTokens struct{ n int }

func (c *countingTokens) Refresh(context.Context) error {
	c.n++
	return nil
}

// Two workers' passes in one period make one refresh between them,
// whoever comes first; once the lease is gone the next pass refreshes.
func TestInstagramTokenRefreshOncePerPeriod(t *testing.T) {
	rdb := leaseRedis(t)
	lease := jobs.InstagramTokenLease(rdb, resttest.NewQueueName())
	var a, b countingTokens
	jobs.InstagramTokenPass(t.Context(), &a, lease, time.Hour)
	jobs.InstagramTokenPass(t.Context(), &b, lease, time.Hour)
	if a.n != 1 || b.n != 0 {
		t.Fatalf("passes made %d and %d refreshes, want 1 and 0", a.n, b.n)
	}
	if err := rdb.Del(t.Context(), lease.Key).Err(); err != nil {
		t.Fatal(err)
	}
	jobs.InstagramTokenPass(t.Context(), &b, lease, time.Hour)
	if b.n != 1 {
		t.Fatalf("after the period the pass made %d refreshes", b.n)
	}
}
