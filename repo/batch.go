package repo

import (
	"context"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// batches are the Store's batched statements: the webhook claims and
// records of the process's concurrent attempts (ClaimWebhookDelivery,
// RecordWebhookSuccess).
//
// They run on a pool of their own, whose sessions always use a prepared
// statement's generic plan and no sequential scan. A statement over arrays
// of inputs is otherwise planned again at every execution, as each custom
// plan, knowing the arrays' lengths, is estimated cheaper than the generic
// one: that planning cost five times the execution (0.3 ms against 0.06),
// and more events a second went end to end with generic plans than with
// batching alone (the history of docs/performance.md). A generic plan is made
// once per connection, though, with the statistics of that moment, maybe
// of a table nearly empty, so these statements leave the planner one good
// plan whatever it estimates: a nested loop over the inputs, by primary
// key. No sequential scan, and the statuses of an open delivery come as a
// parameter, so that the partial index of open deliveries, whose predicate
// a parameter cannot prove, is not scanned whole for a few ids. Each
// batcher runs batchRuns executions at once, so the pool needs no more
// connections than both batchers' together. Without prepared statements (a
// pooler such as PgBouncer, SetPrepare) the batches run on the main pool:
// every statement is then planned anyway, and a pooler may refuse the
// connection options.
type batches struct {
	batchDB   *sqlx.DB
	batched   Queries
	claims    *batcher[webhookClaim, *ClaimedWebhookDelivery]
	successes *batcher[webhookSuccess, successRecord]
}

// batchOptions are the batches' session settings.
const batchOptions = "-c plan_cache_mode=force_generic_plan -c enable_seqscan=off"

// openBatches opens the batches' pool on cfg, with batchOptions.
func (s *Store) openBatches(cfg pq.Config) error {
	cfg.Options = strings.TrimSpace(cfg.Options + " " + batchOptions)
	db, err := openConfig(cfg)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(2 * batchRuns)
	db.SetMaxIdleConns(2 * batchRuns)
	db.SetConnMaxIdleTime(connIdleTime)
	s.batchDB = sqlx.NewDb(db, "postgres")
	s.batched = Queries{q: s.batchDB, count: s.count}
	s.claims = &batcher[webhookClaim, *ClaimedWebhookDelivery]{
		run: func(ctx context.Context, c []webhookClaim) ([]*ClaimedWebhookDelivery, error) {
			return s.batchQueries().claimWebhookDeliveries(ctx, c)
		}}
	s.successes = &batcher[webhookSuccess, successRecord]{
		run: func(ctx context.Context, r []webhookSuccess) ([]successRecord, error) {
			return s.batchQueries().recordWebhookSuccesses(ctx, r)
		}}
	return nil
}

// batchQueries are the queries the batches run on: their own pool's, with
// prepared statements, or the main pool's without (SetPrepare).
func (s *Store) batchQueries() Queries {
	if s.batched.stmts == nil {
		return s.Queries
	}
	return s.batched
}

// batcher runs concurrent calls of one statement as few executions over
// all their inputs: a call that finds fewer than batchRuns executions
// running starts one for itself at once, and the calls that arrive while
// batchRuns run wait, then go together in the next. Nothing waits for a
// batch to fill, so a lone call costs what it did unbatched, and under load
// each round trip carries every call that came during the last one (as a
// WAL flush carries every commit that came during the one before). Two
// executions overlap, so a batch is gathered while one runs, and a slow
// execution does not stop the calls.
type batcher[In, Out any] struct {
	// run executes the statement for a batch and returns one output per
	// input, in order; its error is every call's.
	run func(context.Context, []In) ([]Out, error)

	mu      sync.Mutex
	waiting []batchCall[In, Out]
	running int
}

// batchRuns is how many executions of a batcher run at once.
const batchRuns = 2

type batchCall[In, Out any] struct {
	in   In
	done chan batchResult[Out]
}

type batchResult[Out any] struct {
	out Out
	err error
}

// do runs in with whatever calls are waiting and returns its output.
//
// The execution does not end with the context of the call that starts it:
// other calls' inputs ride on it, and a write that reached Postgres must be
// answered to its caller. Each call still waits for its own answer.
func (b *batcher[In, Out]) do(ctx context.Context, in In) (Out, error) {
	call := batchCall[In, Out]{in: in, done: make(chan batchResult[Out], 1)}
	b.mu.Lock()
	b.waiting = append(b.waiting, call)
	lead := b.running < batchRuns
	if lead {
		b.running++
	}
	b.mu.Unlock()
	if lead {
		b.runWaiting(context.WithoutCancel(ctx))
	}
	r := <-call.done
	return r.out, r.err
}

// runWaiting runs one execution over the calls waiting, then hands the
// calls that came meanwhile to another goroutine, so no caller runs other
// calls' executions for longer than its own.
func (b *batcher[In, Out]) runWaiting(ctx context.Context) {
	b.mu.Lock()
	calls := b.waiting
	b.waiting = nil
	b.mu.Unlock()

	if len(calls) > 0 { // another execution may have taken them all
		ins := make([]In, len(calls))
		for i, c := range calls {
			ins[i] = c.in
		}
		outs, err := b.run(ctx, ins)
		for i, c := range calls {
			var r batchResult[Out]
			if r.err = err; err == nil {
				r.out = outs[i]
			}
			c.done <- r
		}
	}

	b.mu.Lock()
	more := len(b.waiting) > 0
	if !more {
		b.running--
	}
	b.mu.Unlock()
	if more {
		go b.runWaiting(ctx)
	}
}
