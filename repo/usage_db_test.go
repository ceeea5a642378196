package repo_test

import (
	"context"
	"errors"
	"github.com/lib/pq"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// usageWorld is a store with one workspace of a given limit.
func usageWorld(t *testing.T, limit int) *repo.Store {
	t.Helper()
	store := repotest.NewStore(t)
	if _, err := store.DB.ExecContext(t.Context(), `INSERT INTO workspaces (id, name, plan, status,
		messages_limit, rate_per_second, rate_per_minute) VALUES ('ws_q', 'Q', 'pro', 'active', $1, 10, 600)`, limit); err != nil {
		t.Fatal(err)
	}
	return store
}

// countOne takes one unit in a transaction of its own, which commits unless
// rollback.
func countOne(ctx context.Context, store *repo.Store, rollback bool) (shard int, ok bool, err error) {
	errRollback := context.Canceled
	err = store.InTx(ctx, func(q repo.Queries) error {
		shard, ok, err = q.CountMessage(ctx, "ws_q", true, "2026-11")
		if err == nil && rollback {
			return errRollback
		}
		return err
	})
	if err == errRollback {
		err = nil
	}
	return shard, ok, err
}

func used(t *testing.T, store *repo.Store) int {
	t.Helper()
	n, err := store.MessagesUsed(t.Context(), "ws_q", true, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Concurrent sends of one workspace never take more than its limit, nor
// fewer: with 40 transactions at once for a limit of 300 (enough for the
// shards to be granted chunks, then one unit at a time near the limit),
// exactly 300 units are taken of 400 attempts.
func TestQuotaShardsExactUnderConcurrency(t *testing.T) {
	store := usageWorld(t, 300)
	ctx := t.Context()
	var mu sync.Mutex
	taken, refused := 0, 0
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			for range 10 {
				_, ok, err := countOne(ctx, store, false)
				mu.Lock()
				switch {
				case err != nil:
					var pe *pq.Error
					if errors.As(err, &pe) {
						t.Error(pe.Detail, pe.Where)
					}
					t.Error(err)
				case ok:
					taken++
				default:
					refused++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if taken != 300 || refused != 100 {
		t.Errorf("taken %d, refused %d; want 300 and 100", taken, refused)
	}
	if n := used(t, store); n != 300 {
		t.Errorf("used %d, want 300", n)
	}
	var over int
	if err := store.DB.Get(&over, `SELECT count(*) FROM usage_shards WHERE used > cap`); err != nil || over != 0 {
		t.Errorf("%d shards past their cap (%v)", over, err)
	}
	var counted struct{ Used, Granted int }
	if err := store.DB.Get(&counted, `SELECT used, granted FROM usage_counters`); err != nil || counted.Used+counted.Granted > 300 {
		t.Errorf("counter row %+v past the limit (%v)", counted, err)
	}
}

// Units stranded in other shards are still taken before a send is refused,
// a rolled back or given back unit is taken again, and a lowered limit
// holds at once, though shards were granted more under the old one.
func TestQuotaShardsSpareRollbackAndLimitChange(t *testing.T) {
	store := usageWorld(t, 3)
	ctx := t.Context()
	// Grant each of three shards one unit, unused.
	for s := range 3 {
		if _, err := store.DB.ExecContext(ctx, `INSERT INTO usage_counters VALUES ('ws_q', true, '2026-11', 0, 3)
			ON CONFLICT (workspace_id, livemode, period) DO NOTHING`); err != nil {
			t.Fatal(err)
		}
		if _, err := store.DB.ExecContext(ctx, `INSERT INTO usage_shards VALUES ('ws_q', true, '2026-11', $1, 0, 1, 3)`, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := countOne(ctx, store, true); err != nil || !ok {
		t.Fatalf("rolled back send: %v %v", ok, err)
	}
	var shards []int
	for range 3 {
		shard, ok, err := countOne(ctx, store, false)
		if err != nil || !ok {
			t.Fatalf("send within the limit refused: %v %v", ok, err)
		}
		shards = append(shards, shard)
	}
	if _, ok, err := countOne(ctx, store, false); err != nil || ok {
		t.Fatalf("fourth send of 3: %v %v", ok, err)
	}
	if err := store.UncountMessage(ctx, "ws_q", true, "2026-11", shards[0]); err != nil {
		t.Fatal(err)
	}
	if used(t, store) != 2 {
		t.Fatalf("used %d after a unit given back", used(t, store))
	}
	if _, ok, err := countOne(ctx, store, false); err != nil || !ok {
		t.Fatalf("the unit given back is not taken again: %v %v", ok, err)
	}
	// Raised to 10, then, with 3 used and shards granted more, lowered to 4:
	// one more send, not the shards' grants.
	if _, err := store.DB.ExecContext(ctx, `UPDATE workspaces SET messages_limit = 10`); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := countOne(ctx, store, false); err != nil || !ok {
		t.Fatalf("send under a raised limit: %v %v", ok, err)
	}
	if _, err := store.DB.ExecContext(ctx, `UPDATE workspaces SET messages_limit = 5`); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range 5 {
		if _, ok, err := countOne(ctx, store, false); err != nil {
			t.Fatal(err)
		} else if ok {
			n++
		}
	}
	if n != 1 || used(t, store) != 5 {
		t.Errorf("under the lowered limit of 5 with 4 used: %d more taken, %d used", n, used(t, store))
	}
}

// Units counted on the counter row itself, before it had shards, count and
// are given back there.
func TestQuotaCounterRowCountsFromBeforeShards(t *testing.T) {
	store := usageWorld(t, 10)
	ctx := t.Context()
	if _, err := store.DB.ExecContext(ctx, `INSERT INTO usage_counters VALUES ('ws_q', true, '2026-11', 9)`); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := countOne(ctx, store, false); err != nil || !ok {
		t.Fatalf("tenth send: %v %v", ok, err)
	}
	if _, ok, err := countOne(ctx, store, false); err != nil || ok {
		t.Fatalf("eleventh send: %v %v", ok, err)
	}
	if err := store.UncountMessage(ctx, "ws_q", true, "2026-11", repo.UsageShards); err != nil {
		t.Fatal(err)
	}
	if n := used(t, store); n != 9 {
		t.Errorf("used %d, want 9", n)
	}
}
