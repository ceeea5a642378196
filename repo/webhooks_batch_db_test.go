package repo_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestClaimsThatWaitGoInOneStatement: while the store's claim executions
// run (here, held by a row lock), the claims that come wait, and then go
// to Postgres as one statement, each answered its own delivery and lease.
func TestClaimsThatWaitGoInOneStatement(t *testing.T) {
	w := newAttemptWorld(t)
	ctx := t.Context()
	var held, waiting []string
	for range repo.BatchRuns {
		held = append(held, w.delivery("", w.now))
	}
	for range 5 {
		waiting = append(waiting, w.delivery("", w.now))
	}
	lock, err := w.store.DB.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback() //nolint:errcheck // committed below
	if _, err := lock.ExecContext(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = ANY($1) FOR UPDATE`, held); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		id, token string
		c         *repo.ClaimedWebhookDelivery
		err       error
	}
	answers := make(chan answer, len(held)+len(waiting))
	claim := func(id, token string) {
		c, err := w.store.ClaimWebhookDelivery(ctx, id, w.now, w.now.Add(time.Minute), token)
		answers <- answer{id, token, c, err}
	}
	for i, id := range held {
		go claim(id, fmt.Sprint("tok-held-", i))
		waitForLockWaits(t, w.store, "unflushed", i+1)
	}
	for i, id := range waiting {
		go claim(id, fmt.Sprint("tok-", i))
	}
	repotest.Eventually(t, "the claims to wait for the held statement", func() bool {
		return w.store.ClaimsWaiting() >= len(waiting)
	})
	before := w.store.Statements()
	if err := lock.Commit(); err != nil {
		t.Fatal(err)
	}
	for range len(held) + len(waiting) {
		a := <-answers
		if a.err != nil || a.c.ID != a.id || *a.c.LeaseToken != a.token || a.c.Endpoint.ID != w.ep.ID {
			t.Errorf("claim of %s with %s: %+v, %v", a.id, a.token, a.c, a.err)
		}
	}
	if n := w.store.Statements() - before; n != 1 {
		t.Errorf("the %d waiting claims took %d statements, want 1", len(waiting), n)
	}
}

// waitForLockWaits waits until n statements containing part wait for a lock.
func waitForLockWaits(t *testing.T, store *repo.Store, part string, n int) {
	t.Helper()
	repotest.Eventually(t, fmt.Sprintf("%d statements with %q to wait for a lock", n, part), func() bool {
		var got int
		if err := store.DB.GetContext(t.Context(), &got, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND strpos(query, $1) > 0`, part); err != nil {
			t.Fatal(err)
		}
		return got >= n
	})
}

// TestTwoClaimsOfADeliveryInOneStatement: of two claims of one delivery in
// one statement, one is answered, with the token the delivery took, and
// the other is not: the delivery is attempted once.
func TestTwoClaimsOfADeliveryInOneStatement(t *testing.T) {
	w := newAttemptWorld(t)
	id := w.delivery("", w.now)
	answers, err := w.store.ClaimEach(t.Context(), id, w.now, w.now.Add(time.Minute), "tok-a", "tok-b")
	if err != nil {
		t.Fatal(err)
	}
	a, b := answers[0], answers[1]
	if (a == nil) == (b == nil) {
		t.Fatalf("claims answered %v and %v, want exactly one", a, b)
	}
	won := a
	if won == nil {
		won = b
	}
	var token string
	if err := w.store.DB.Get(&token, `SELECT lease_token FROM webhook_deliveries WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if *won.LeaseToken != token {
		t.Errorf("the answered claim has token %s, the delivery %s", *won.LeaseToken, token)
	}
}

// TestBatchedStatementsPlanByPrimaryKey: the batches' sessions use generic
// plans without sequential scans, and the generic plans of the claim and
// the record, made while the table is nearly empty, look the inputs up by
// primary key, not by scanning the open deliveries, which would cost the
// more the more deliveries wait.
func TestBatchedStatementsPlanByPrimaryKey(t *testing.T) {
	w := newAttemptWorld(t)
	w.delivery("", w.now)
	w.delivery("conv_1", w.now)
	ctx := t.Context()
	conn, err := w.store.BatchDB().Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for setting, want := range map[string]string{"plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"} {
		var got string
		if err := conn.GetContext(ctx, &got, `SELECT current_setting($1)`, setting); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", setting, got, err, want)
		}
	}
	for name, tc := range map[string]struct{ query, args string }{
		"claim":  {repo.ClaimDeliveriesQuery, `('{whd_x}', '{tok}', '{2026-03-02T10:00:00Z}', '{2026-03-02T10:01:00Z}', '{pending,retrying}')`},
		"record": {repo.RecordSuccessesQuery, `('{whd_x}', '{tok}', '{200}', '{pending,retrying}', '{2026-03-02T10:00:00Z}', '{12}', '{ok}')`},
	} {
		if _, err := conn.ExecContext(ctx, `PREPARE `+name+` AS `+tc.query); err != nil {
			t.Fatal(err)
		}
		var lines []string
		if err := conn.SelectContext(ctx, &lines, `EXPLAIN EXECUTE `+name+tc.args); err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "webhook_deliveries_pkey") || strings.Contains(plan, "webhook_deliveries_due") ||
			strings.Contains(plan, "Seq Scan on webhook_deliveries") {
			t.Errorf("the %s's plan does not look its deliveries up by primary key:\n%s", name, plan)
		}
	}
}

// TestBatchesWithoutPreparedStatements: with prepared statements off (a
// pooler), the batches run on the main pool, and claim and record as ever.
func TestBatchesWithoutPreparedStatements(t *testing.T) {
	w := newAttemptWorld(t)
	w.store.SetPrepare(false)
	id := w.delivery("", w.now)
	if _, err := w.claim(id, "tok", w.now); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := w.store.RecordWebhookSuccess(t.Context(), id, "tok", 200); err != nil || !ok {
		t.Fatalf("record = %v, %v", ok, err)
	}
	if c, err := w.claim(id, "tok-2", w.now.Add(time.Hour)); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("a finished delivery: claim = %+v, %v; want ErrNotFound", c, err)
	}
	if n := w.store.BatchDB().Stats().OpenConnections; n != 0 {
		t.Errorf("the batches' pool opened %d connections, want none", n)
	}
}

// TestARecordSeesTheSuccessorItsStatementPredates: a record waits for a row
// before the one it records (in its batch), and meanwhile a successor of
// that one is fanned out and found not ready, its predecessor open and not
// yet locked. The record's statement began before the successor existed,
// yet it answers it as the next: it looks after holding the row, in a
// snapshot of its own, so the successor does not wait for the sweep.
func TestARecordSeesTheSuccessorItsStatementPredates(t *testing.T) {
	w := newAttemptWorld(t)
	ctx := t.Context()
	held := w.delivery("", w.now)
	first := w.delivery("conv_1", w.now)
	for id, token := range map[string]string{held: "tok-held", first: "tok-first"} {
		if _, err := w.claim(id, token, w.now); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := w.store.DB.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback() //nolint:errcheck // committed below
	if _, err := lock.ExecContext(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, held); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		recorded []bool
		next     []*repo.DueWebhookDelivery
		err      error
	}
	done := make(chan answer, 1)
	go func() {
		recorded, next, err := w.store.RecordSuccesses(ctx, []string{held, first}, []string{"tok-held", "tok-first"})
		done <- answer{recorded, next, err}
	}()
	waitForLockWaits(t, w.store, "recorded AS", 1)
	second := w.delivery("conv_1", w.now)
	if ready, err := w.store.ReadyWebhookDeliveries(ctx, []string{second}); err != nil || len(ready) != 0 {
		t.Fatalf("while the first is open: ready %v, %v; want none", ready, err)
	}
	if err := lock.Commit(); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || !a.recorded[0] || !a.recorded[1] {
		t.Fatalf("record = %v, %v", a.recorded, a.err)
	}
	if a.next[1] == nil || a.next[1].ID != second {
		t.Errorf("the first's next = %+v, want %s", a.next[1], second)
	}
	if a.next[0] != nil {
		t.Errorf("an unordered delivery's next = %+v, want none", a.next[0])
	}
}

// TestBatchPoolOpensAtMostFour: the batches' pool opens at most the 4
// connections operations.md counts on top of MSGSVC_DB_MAX_CONNS.
func TestBatchPoolOpensAtMostFour(t *testing.T) {
	store := repotest.NewStore(t)
	if n := store.BatchDB().Stats().MaxOpenConnections; n != 4 {
		t.Errorf("the batches' pool opens up to %d connections, want 4", n)
	}
}
