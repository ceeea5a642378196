package repo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// TestClaimsOfABurstAreHeapOnly: deliveries fanned out together fill
// their pages as they are inserted; claiming each of them (a lease: no
// indexed column) must still be a heap-only update, so a claim writes no
// index entry (migration 0059). All the claims run in one transaction,
// where no pruning can make room, which is harder than a worker's claims,
// each committed.
func TestClaimsOfABurstAreHeapOnly(t *testing.T) {
	w := newAttemptWorld(t)
	var ids []string
	for range 60 {
		ids = append(ids, w.delivery("", w.now))
	}
	err := w.store.InTx(t.Context(), func(q repo.Queries) error {
		ctx := t.Context()
		for i, id := range ids {
			got, err := q.ClaimEach(ctx, id, w.now, w.now.Add(time.Minute), fmt.Sprint("tok-", i))
			if err != nil {
				return err
			}
			if len(got) != 1 || got[0] == nil {
				t.Fatalf("claim of %s: %v", id, got)
			}
		}
		upd, hot, err := q.XactUpdates(ctx, "webhook_deliveries")
		if err != nil {
			return err
		}
		if upd != int64(len(ids)) || hot != upd {
			t.Errorf("webhook_deliveries: %d updates, %d heap-only; want %d and %d", upd, hot, len(ids), len(ids))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
