package repo_test

import (
	"testing"

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
