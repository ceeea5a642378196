package repo

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// ColumnListQueries returns, for every row struct, a query selecting its
// column list, for the external test that runs them on a migrated database.
func ColumnListQueries() map[string]string {
	out := map[string]string{}
	for name, cl := range columnLists {
		out[name] = `SELECT ` + cl.columns + ` FROM ` + cl.from + ` LIMIT 0`
	}
	return out
}

// MessageBatchesQuery is the statement MessageBatches runs.
const MessageBatchesQuery = messageBatchesList

// PurgeDeletedConversationLogsQuery is the first statement of
// PurgeDeletedConversationLogs.
const PurgeDeletedConversationLogsQuery = purgeDeletedConversationLogs

// ForgetContention clears the count of runs that go straight to InTx for
// key's slot of contended keys (InTxOptimistic), which keys of other tests
// may share.
func ForgetContention(key string) { contendedSlot(key).Store(0) }

// UnfannedPartitionsQuery is the query UnfannedPartitions runs.
var UnfannedPartitionsQuery = unfannedPartitions

// SetMaxPrepared changes the bound of prepared statement texts until the
// test ends.
func SetMaxPrepared(t interface{ Cleanup(func()) }, n int) {
	old := maxPrepared
	maxPrepared = n
	t.Cleanup(func() { maxPrepared = old })
}

// DueSandboxMessagesQuery is the query LockDueSandboxMessages runs.
var DueSandboxMessagesQuery = dueSandboxMessages

// ShowSetting reads a setting where q runs: in its transaction, if any.
func (q Queries) ShowSetting(ctx context.Context, name string, v *string) error {
	return q.get(ctx, v, `SELECT current_setting($1)`, name)
}

// ClaimDeliveriesQuery and RecordSuccessesQuery are the batched webhook
// statements; BatchDB is the pool they run on.
var ClaimDeliveriesQuery, RecordSuccessesQuery = claimDeliveriesQuery, recordSuccessesQuery

func (s *Store) BatchDB() *sqlx.DB { return s.batchDB }

// ClaimsWaiting is how many claims wait for an execution of their batcher.
func (s *Store) ClaimsWaiting() int { return s.claims.waitingCalls() }

// waitingCalls is how many calls wait for an execution.
func (b *batcher[In, Out]) waitingCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting)
}

// BatchRuns is batchRuns.
const BatchRuns = batchRuns

// ClaimEach makes one claim of a delivery per token, all in one statement
// where q runs (in its transaction, if any), and returns what each was
// answered.
func (q Queries) ClaimEach(ctx context.Context, id string, now, until time.Time, tokens ...string) ([]*ClaimedWebhookDelivery, error) {
	claims := make([]webhookClaim, len(tokens))
	for i, token := range tokens {
		claims[i] = webhookClaim{id, token, now, until}
	}
	return q.claimWebhookDeliveries(ctx, claims)
}

// RecordSuccesses records successes (status 200) of leased deliveries in
// one statement and returns what each was answered.
func (q Queries) RecordSuccesses(ctx context.Context, ids, tokens []string) ([]bool, []*DueWebhookDelivery, error) {
	in := make([]webhookSuccess, len(ids))
	for i := range ids {
		in[i] = webhookSuccess{id: ids[i], token: tokens[i], status: 200}
	}
	r, err := q.recordWebhookSuccesses(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	recorded, next := make([]bool, len(r)), make([]*DueWebhookDelivery, len(r))
	for i := range r {
		recorded[i], next[i] = r[i].recorded, r[i].next
	}
	return recorded, next, nil
}

// XactUpdates counts the updates of a table in q's transaction so far, and
// how many of them were heap-only (pg_stat_xact_user_tables).
func (q Queries) XactUpdates(ctx context.Context, table string) (updates, hot int64, err error) {
	if err = q.flush(ctx); err != nil {
		return 0, 0, err
	}
	row := struct {
		Upd int64 `db:"n_tup_upd"`
		Hot int64 `db:"n_tup_hot_upd"`
	}{}
	err = q.get(ctx, &row, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = $1`, table)
	return row.Upd, row.Hot, err
}

// KeepPrepared prepares query on the store's pool and keeps it in the
// statement cache, as a goroutine that prepared it first would have.
func KeepPrepared(ctx context.Context, s *Store, query string) error {
	st, err := s.DB.PreparexContext(ctx, query)
	if err != nil {
		return err
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	s.stmts.m[query] = st
	return nil
}

// PrepareAgain prepares query as a goroutine that met it new does (the
// cache's prepare), and reports whether the cache answered a statement.
func PrepareAgain(ctx context.Context, s *Store, query string) bool {
	return s.stmts.prepare(ctx, query) != nil
}

// LookUpPrepared looks query up in the cache, as a statement outside a
// transaction does, and reports whether it was found.
func LookUpPrepared(s *Store, query string) bool {
	st, _ := s.stmts.lookup(query, false)
	return st != nil
}

// HoldStatementCache takes the cache's lock until the returned func is called.
func HoldStatementCache(s *Store) (release func()) {
	s.stmts.mu.Lock()
	return s.stmts.mu.Unlock
}
