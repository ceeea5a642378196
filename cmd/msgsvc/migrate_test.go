package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestMigrateCreatesTheDatabase: `msgsvc migrate` creates the database
// DATABASE_URL names (a name that needs quoting), migrates it, and a second
// run leaves it as it is.
func TestMigrateCreatesTheDatabase(t *testing.T) {
	repotest.NeedsPostgres(t)
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	name := repotest.Prefix() + "_Create-" + hex.EncodeToString(b)
	u, err := url.Parse(repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	admin, err := sqlx.Connect("postgres", repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + pq.QuoteIdentifier(name) + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	t.Setenv("DATABASE_URL", u.String())
	for range 2 {
		if err := run([]string{"migrate"}); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	var exists bool
	if err := admin.Get(&exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name); err != nil || !exists {
		t.Fatalf("database %q exists = %v (%v)", name, exists, err)
	}
	db, err := sqlx.Connect("postgres", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied int
	if err := db.Get(&applied, `SELECT count(*) FROM schema_migrations`); err != nil || applied == 0 {
		t.Fatalf("migrations applied: %d (%v)", applied, err)
	}
}
