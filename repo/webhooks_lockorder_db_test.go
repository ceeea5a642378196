package repo_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/lib/pq"
)

// TestReadinessAndSuccessRecordsNeverDeadlock runs the fan-out's readiness
// check (ReadyWebhookDeliveries) and batched success records
// (RecordWebhookSuccess) of the same deliveries at the same time, round
// after round: the records finish the deliveries leased in each of 12
// conversations while three readiness checks, each of the successors in a
// shuffled order, lock those same deliveries FOR SHARE. Both lock
// deliveries in id order, so Postgres never reports a deadlock (40P01),
// on the batches' pool with generic plans and on the main pool without
// prepared statements (custom plans, as behind a transaction pooler).
func TestReadinessAndSuccessRecordsNeverDeadlock(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) {
			w := newAttemptWorld(t)
			w.store.SetPrepare(prepared)
			const conversations, rounds = 12, 12
			chains := make([][]string, conversations)
			// Made round by round, conversation after conversation, so the
			// rows of a conversation lie apart on disk and ids compare as
			// strings ("whd_att_10" before "whd_att_2"), not as made.
			for range rounds + 1 {
				for c := range conversations {
					chains[c] = append(chains[c], w.delivery(fmt.Sprintf("conv_%d", c), w.now))
				}
			}
			for round := range rounds {
				w.deadlockRound(chains, round)
			}
		})
	}
}

// deadlockRound leases delivery round of every chain, then records their
// successes while readiness checks of delivery round+1 run.
func (w *attemptWorld) deadlockRound(chains [][]string, round int) {
	t := w.t
	var leased, successors []string
	for c, chain := range chains {
		token := fmt.Sprintf("tok-%d-%d", round, c)
		if _, err := w.claim(chain[round], token, w.now); err != nil {
			t.Fatalf("round %d: claim %s: %v", round, chain[round], err)
		}
		leased = append(leased, chain[round])
		successors = append(successors, chain[round+1])
	}
	errs := make(chan error, len(leased)+3)
	var wg sync.WaitGroup
	for range 3 {
		ids := append([]string(nil), successors...)
		rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		wg.Go(func() {
			_, err := w.store.ReadyWebhookDeliveries(t.Context(), ids)
			errs <- err
		})
	}
	for c, id := range leased {
		wg.Go(func() {
			ok, _, err := w.store.RecordWebhookSuccess(t.Context(), id, fmt.Sprintf("tok-%d-%d", round, c), 200)
			if err == nil && !ok {
				err = fmt.Errorf("the success of %s was not recorded", id)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		var pe *pq.Error
		if errors.As(err, &pe) && pe.Code == "40P01" {
			t.Fatalf("round %d: %v: %s", round, err, pe.Detail)
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
