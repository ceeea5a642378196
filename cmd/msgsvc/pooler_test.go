package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// Behind PgBouncer in transaction mode (without prepared statement
// support), a process with MSGSVC_DB_PREPARE on refuses to start, naming
// the variable; with it off it starts; `msgsvc migrate` runs either way.
func TestPoolerWithoutPreparedStatements(t *testing.T) {
	pooled := repotest.PgBouncer(t)
	name := repotest.EmptyDatabase(t)
	t.Setenv("DATABASE_URL", pooled(name))
	if err := run([]string{"migrate"}); err != nil {
		t.Fatalf("migrate through PgBouncer: %v", err)
	}
	cfg, err := loadConfig(func(k string) string {
		if k == "DATABASE_URL" {
			return pooled(name)
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = openStore(t.Context(), cfg)
	if !errors.Is(err, repo.ErrPreparedLost) || !strings.HasPrefix(err.Error(), "MSGSVC_DB_PREPARE: ") {
		t.Fatalf("start with MSGSVC_DB_PREPARE on: %v, want a refusal naming MSGSVC_DB_PREPARE", err)
	}
	cfg.DBPrepare = false
	store, err := openStore(t.Context(), cfg)
	if err != nil {
		t.Fatalf("start with MSGSVC_DB_PREPARE=false: %v", err)
	}
	defer store.Close()
	if err := store.SchemaCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
}
