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
func (s *Store) ClaimsWaiting() int {
	s.claims.mu.Lock()
	defer s.claims.mu.Unlock()
	return len(s.claims.waiting)
}

// BatchRuns is batchRuns.
const BatchRuns = batchRuns

// ClaimBoth makes two claims of one delivery in one statement, with tokens
// a and b, and returns what each was answered.
func (q Queries) ClaimBoth(ctx context.Context, id string, now, until time.Time, a, b string) (*ClaimedWebhookDelivery, *ClaimedWebhookDelivery, error) {
	r, err := q.claimWebhookDeliveries(ctx, []webhookClaim{{id, a, now, until}, {id, b, now, until}})
	if err != nil {
		return nil, nil, err
	}
	return r[0], r[1], nil
}

// RecordSuccesses records successes (status 200) of leased deliveries in
// one statement and returns what each was answered.
func (q Queries) RecordSuccesses(ctx context.Context, ids, tokens []string) ([]bool, []*DueWebhookDelivery, error) {
	in := make([]webhookSuccess, len(ids))
	for i := range ids {
		in[i] = webhookSuccess{ids[i], tokens[i], 200}
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
