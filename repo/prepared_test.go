package repo_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// prepared counts the statements prepared on the store's one connection
// whose text contains part.
func prepared(t *testing.T, store *repo.Store, part string) int {
	t.Helper()
	var n int
	if err := store.DB.GetContext(t.Context(), &n,
		`SELECT count(*) FROM pg_prepared_statements WHERE strpos(statement, $1) > 0`, part); err != nil {
		t.Fatal(err)
	}
	return n
}

// oneConnection bounds the store to one connection, so that what was
// prepared on it can be read back.
func oneConnection(t *testing.T) *repo.Store {
	store := repotest.NewStore(t)
	store.SetMaxConns(1)
	return store
}

// TestStatementsArePreparedOnce: a statement run again, on the pool or in a
// transaction on the same connection, reuses the one prepared statement.
func TestStatementsArePreparedOnce(t *testing.T) {
	store := oneConnection(t)
	ctx := t.Context()
	for range 3 {
		if _, err := store.Workspace(ctx, "ws_none"); !errors.Is(err, repo.ErrNotFound) {
			t.Fatalf("Workspace: %v", err)
		}
	}
	err := store.InTx(ctx, func(q repo.Queries) error {
		_, err := q.Workspace(ctx, "ws_none")
		return err
	})
	if !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("Workspace in a transaction: %v", err)
	}
	if n := prepared(t, store, "FROM workspaces WHERE id = $1"); n != 1 {
		t.Errorf("%d prepared statements of the workspace look-up, want 1", n)
	}
}

// TestListQueriesRunUnprepared: list queries, whose texts and best plans
// depend on the filters given, are not prepared.
func TestListQueriesRunUnprepared(t *testing.T) {
	store := oneConnection(t)
	channel := "website"
	s := repo.Scope{WorkspaceID: "ws_none"}
	for range 6 {
		if _, err := store.Conversations(t.Context(), s, repo.ConversationFilter{Channel: &channel}, repo.Page{Limit: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if n := prepared(t, store, "ORDER BY c.created_at DESC"); n != 0 {
		t.Errorf("%d list statements prepared, want 0", n)
	}
}

// TestPrepareOff: with prepared statements off (MSGSVC_DB_PREPARE=false),
// statements run unnamed.
func TestPrepareOff(t *testing.T) {
	store := oneConnection(t)
	store.SetPrepare(false)
	if _, err := store.Workspace(t.Context(), "ws_none"); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("Workspace: %v", err)
	}
	if n := prepared(t, store, "FROM workspaces"); n != 0 {
		t.Errorf("%d statements prepared with preparing off, want 0", n)
	}
}

// TestPreparedBound: past the bound of statement texts, statements still
// run, unprepared.
func TestPreparedBound(t *testing.T) {
	repo.SetMaxPrepared(t, 1)
	store := oneConnection(t)
	ctx := t.Context()
	if _, err := store.Workspace(ctx, "ws_none"); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("Workspace: %v", err)
	}
	if _, err := store.WebhookEndpointAnyState(ctx, "we_none"); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("WebhookEndpointAnyState past the bound: %v", err)
	}
	if a, b := prepared(t, store, "FROM workspaces"), prepared(t, store, "FROM webhook_endpoints"); a != 1 || b != 0 {
		t.Errorf("prepared: workspaces %d, webhook endpoints %d; want 1 and 0", a, b)
	}
}

// TestNewStatementInATransactionDoesNotWaitForTheTransaction: a text new to
// the pool, first run in a transaction that holds the pool's only
// connection, runs unprepared rather than wait for a connection to prepare
// it on (which would never come), and is prepared in the background for
// the next time.
func TestNewStatementInATransactionDoesNotWaitForTheTransaction(t *testing.T) {
	store := oneConnection(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := store.InTx(ctx, func(q repo.Queries) error {
		_, err := q.Workspace(ctx, "ws_none")
		return err
	})
	if !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("Workspace in a transaction on a pool of one: %v", err)
	}
	repotest.Eventually(t, "the statement to be prepared in the background", func() bool {
		return store.DB.Stats().InUse == 0 && prepared(t, store, "FROM workspaces WHERE id = $1") > 0
	})
}

// TestDuplicateClosesOutsideTheCacheLock: of two goroutines that prepared
// the same text, the second closes its statement, which waits for the
// connection it was prepared on while a statement runs there (database/sql
// locks the connection for the close). That statement may wait in Postgres
// for a transaction whose goroutine needs the cache: the close must not
// hold the cache's lock, or the process and Postgres wait for each other.
func TestDuplicateClosesOutsideTheCacheLock(t *testing.T) {
	store, dsn := repotest.NewStoreURL(t)
	store.SetMaxConns(1)
	watch, err := sqlx.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	ctx := t.Context()
	const query = `SELECT name FROM workspaces WHERE id = $1 AND status = 'active'`
	if err := repo.KeepPrepared(ctx, store, query); err != nil {
		t.Fatal(err)
	}

	// The second prepare waits for the pool's one connection, held here;
	// given it, it prepares its duplicate there and then waits for the
	// cache's lock, held here too.
	conn, err := store.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prepared := make(chan bool, 1)
	go func() { prepared <- repo.PrepareAgain(context.WithoutCancel(ctx), store, query) }()
	repotest.Eventually(t, "the prepare to wait for the connection", func() bool { return store.DB.Stats().WaitCount == 1 })
	release := repo.HoldStatementCache(store)
	conn.Close()
	repotest.Eventually(t, "the duplicate to be prepared", func() bool { return store.DB.Stats().Idle == 1 })

	// A statement runs on that connection; then the prepare goes on to
	// close its duplicate, which waits for the statement.
	sleepCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	slept := make(chan struct{})
	go func() { store.DB.ExecContext(sleepCtx, `SELECT pg_sleep(60)`); close(slept) }() //nolint:errcheck // cancelled below
	t.Cleanup(func() { stop(); <-slept })
	repotest.Eventually(t, "the statement to run", func() bool {
		var n int
		return watch.GetContext(ctx, &n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND query = 'SELECT pg_sleep(60)' AND state = 'active'`) == nil && n == 1
	})
	release()

	// The prepare, given the lock, closes its duplicate (a goroutine's
	// place shows only in its stack).
	repotest.Eventually(t, "the duplicate's close", func() bool {
		buf := make([]byte, 1<<20)
		return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("database/sql.(*Stmt).Close("))
	})
	looked := make(chan bool, 1)
	go func() { looked <- repo.LookUpPrepared(store, query) }()
	select {
	case found := <-looked:
		if !found {
			t.Error("the first statement is not in the cache")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a look-up waited 30 s for the cache while a duplicate closed: its lock is held across the close")
	}
	select {
	case <-prepared:
		t.Fatal("the duplicate closed while its connection ran a statement: the case was not set up")
	default:
	}
	stop()
	if !<-prepared {
		t.Error("the second prepare answered no statement; want the first one")
	}
}
