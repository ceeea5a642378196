package repo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// openPooled opens a store on a database through PgBouncer in transaction
// mode, as an operator runs msgsvc behind one.
func openPooled(t *testing.T, url string, prepare bool) *repo.Store {
	t.Helper()
	store, err := repo.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	store.SetPrepare(prepare)
	return store
}

// advisoryLocks counts the advisory locks held in a database, asked of
// Postgres directly.
func advisoryLocks(t *testing.T, name string) int {
	t.Helper()
	db, err := sqlx.Connect("postgres", repotest.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
		WHERE l.locktype = 'advisory' AND d.datname = $1`, name); err != nil {
		t.Fatal(err)
	}
	return n
}

// The AI's lock works through a transaction pooler: while one holds it,
// another is refused, and when the holder is done nothing is left held on
// a server connection, even when the holder's work moved its client
// connection's server connection to another transaction meanwhile (a
// session lock was then taken on one server connection and released on
// another, so it stayed held until PgBouncer closed the connection).
func TestWithLockThroughPgBouncer(t *testing.T) {
	pooled := repotest.PgBouncer(t)
	name := repotest.NewDatabase(t)
	store := openPooled(t, pooled(name), false)
	ctx := t.Context()
	for i := range 3 {
		ran, err := store.WithLock(ctx, "ai:conv_1", func() error {
			// Another transaction takes a server connection while
			// the lock is held, as the AI's work does.
			err := store.InTx(ctx, func(q repo.Queries) error { return q.SchemaCurrent(ctx) })
			if err != nil {
				return err
			}
			other, err := store.WithLock(ctx, "ai:conv_1", func() error { return errors.New("ran while held") })
			if err != nil || other {
				t.Errorf("round %d: a second holder got in (%v, %v)", i, other, err)
			}
			if n := advisoryLocks(t, name); n != 1 {
				t.Errorf("round %d: %d advisory locks held while the lock is, want 1", i, n)
			}
			return nil
		})
		if err != nil || !ran {
			t.Fatalf("round %d: ran %v, err %v", i, ran, err)
		}
		if n := advisoryLocks(t, name); n != 0 {
			t.Fatalf("round %d: %d advisory locks left held after the holder finished", i, n)
		}
	}
}

// A failing holder lets go too, and its error comes back.
func TestWithLockReleasesOnError(t *testing.T) {
	name := repotest.NewDatabase(t)
	store := openPooled(t, repotest.URL(name), true)
	boom := errors.New("boom")
	ran, err := store.WithLock(t.Context(), "k", func() error { return boom })
	if !ran || !errors.Is(err, boom) {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	if n := advisoryLocks(t, name); n != 0 {
		t.Fatalf("%d advisory locks left held", n)
	}
}

// Concurrent `msgsvc migrate` runs through a transaction pooler apply each
// migration once, and all of them succeed.
func TestConcurrentMigrationsThroughPgBouncer(t *testing.T) {
	pooled := repotest.PgBouncer(t)
	name := repotest.EmptyDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		store := openPooled(t, pooled(name), false)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = store.Migrate(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	store := openPooled(t, repotest.URL(name), true)
	if err := store.SchemaCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	var versions, distinct int
	if err := store.DB.QueryRow(`SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&versions, &distinct); err != nil {
		t.Fatal(err)
	}
	if versions != distinct || versions == 0 {
		t.Fatalf("schema_migrations holds %d rows of %d versions", versions, distinct)
	}
	if n := advisoryLocks(t, name); n != 0 {
		t.Fatalf("%d advisory locks left held", n)
	}
}

// Prepared statements through a pooler that cannot carry them are found at
// start; directly on Postgres, or with them off, the check passes.
func TestCheckPrepared(t *testing.T) {
	pooled := repotest.PgBouncer(t)
	name := repotest.NewDatabase(t)
	ctx := t.Context()
	if err := openPooled(t, repotest.URL(name), true).CheckPrepared(ctx); err != nil {
		t.Errorf("directly on Postgres: %v", err)
	}
	if err := openPooled(t, pooled(name), false).CheckPrepared(ctx); err != nil {
		t.Errorf("through PgBouncer with prepared statements off: %v", err)
	}
	// PgBouncer before 1.21 (Debian's is 1.18), or later ones with
	// max_prepared_statements = 0 (repotest.PgBouncer sets it), carries
	// no prepared statement in transaction mode.
	store := openPooled(t, pooled(name), true)
	err := store.CheckPrepared(ctx)
	if !errors.Is(err, repo.ErrPreparedLost) {
		t.Fatalf("through PgBouncer with prepared statements on: %v, want ErrPreparedLost", err)
	}
	// The store still works for what it runs unprepared.
	store.SetPrepare(false)
	if err := store.SchemaCurrent(ctx); err != nil {
		t.Fatal(err)
	}
}

// Readiness tells the truth about the database: a read-only session (a
// standby, default_transaction_read_only) and a schema missing this
// binary's migrations are not ready.
func TestReady(t *testing.T) {
	ctx := t.Context()
	name := repotest.NewDatabase(t)
	if err := openPooled(t, repotest.URL(name), true).Ready(ctx); err != nil {
		t.Fatalf("a migrated, writable database: %v", err)
	}
	admin, err := sqlx.Connect("postgres", repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	if err := openPooled(t, repotest.URL(name), true).Ready(ctx); !errors.Is(err, repo.ErrReadOnly) {
		t.Fatalf("a read-only database: %v, want ErrReadOnly", err)
	}

	empty := openPooled(t, repotest.URL(repotest.EmptyDatabase(t)), true)
	if err := empty.Ready(ctx); !errors.Is(err, repo.ErrSchemaBehind) {
		t.Fatalf("an unmigrated database: %v, want ErrSchemaBehind", err)
	}
	// One migration missing is found too.
	store := openPooled(t, repotest.URL(repotest.NewDatabase(t)), true)
	var last int
	if err := store.DB.Get(&last, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version`); err != nil {
		t.Fatal(err)
	}
	err = store.Ready(ctx)
	if !errors.Is(err, repo.ErrSchemaBehind) || !strings.Contains(err.Error(), fmt.Sprintf("missing %d", last)) {
		t.Fatalf("a database missing migration %d: %v", last, err)
	}
}

// The batches' pool sets its session in the options startup parameter,
// which PgBouncer refuses unless told to take it: the check at start says
// what to set.
func TestCheckBatchPoolThroughPgBouncer(t *testing.T) {
	name := repotest.NewDatabase(t)
	refusing := repotest.PgBouncer(t)
	err := openPooled(t, refusing(name), true).CheckBatchPool(t.Context())
	if !errors.Is(err, repo.ErrStartupOptions) || !strings.Contains(err.Error(), "ignore_startup_parameters = extra_float_digits, options") {
		t.Fatalf("through PgBouncer refusing options: %v, want ErrStartupOptions", err)
	}
	ignoring := repotest.PgBouncer(t, "ignore_startup_parameters = extra_float_digits, options")
	if err := openPooled(t, ignoring(name), true).CheckBatchPool(t.Context()); err != nil {
		t.Fatalf("through PgBouncer ignoring options: %v", err)
	}
	if err := openPooled(t, repotest.URL(name), true).CheckBatchPool(t.Context()); err != nil {
		t.Fatalf("directly on Postgres: %v", err)
	}
}
