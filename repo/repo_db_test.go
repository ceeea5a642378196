package repo_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// TestColumnListsExist: every column list names columns the migrated schema
// has.
func TestColumnListsExist(t *testing.T) {
	store := repotest.NewStore(t)
	for name, q := range repo.ColumnListQueries() {
		t.Run(name, func(t *testing.T) {
			rows, err := store.DB.QueryContext(t.Context(), q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			rows.Close()
		})
	}
}

// TestEnsureDatabaseLeavesAnExistingOne: a database that exists is not
// created again; a URL that does not parse is an error.
func TestEnsureDatabaseLeavesAnExistingOne(t *testing.T) {
	_, dsn := repotest.NewStoreURL(t)
	created, err := repo.EnsureDatabase(t.Context(), dsn)
	if err != nil || created {
		t.Fatalf("EnsureDatabase(existing) = %v, %v", created, err)
	}
	if _, err := repo.EnsureDatabase(t.Context(), "postgres://%zz"); err == nil {
		t.Fatal("EnsureDatabase accepted a URL that does not parse")
	}
}

// TestSetMaxConnsBoundsThePool: MSGSVC_DB_MAX_CONNS's bound reaches the
// pool, half of it kept idle.
func TestSetMaxConnsBoundsThePool(t *testing.T) {
	store := repotest.NewStore(t)
	if got := store.DB.Stats().MaxOpenConnections; got != 40 {
		t.Errorf("default bound %d, want 40", got)
	}
	store.SetMaxConns(3)
	conns := make([]*sql.Conn, 0, 3)
	for range 3 {
		c, err := store.DB.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if got := store.DB.Stats().MaxOpenConnections; got != 3 {
		t.Errorf("bound %d, want 3", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if c, err := store.DB.Conn(ctx); err == nil {
		c.Close()
		t.Error("a fourth connection opened past the bound of 3")
	}
	for _, c := range conns {
		c.Close()
	}
	// The connections given back stay open for the next statements: none
	// is closed for want of an idle place.
	if st := store.DB.Stats(); st.Idle != 3 || st.MaxIdleClosed != 0 {
		t.Errorf("%d idle connections kept and %d closed, want all 3 kept", st.Idle, st.MaxIdleClosed)
	}
}
