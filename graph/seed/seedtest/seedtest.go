// Package seedtest gives a domain test a fresh database holding the API
// tests' fixture (rest/testdata/fixture.json), so rules that read the
// database are tested in their package, without going through HTTP.
package seedtest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// FixturePath is rest/testdata/fixture.json.
func FixturePath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "rest", "testdata", "fixture.json")
}

// Store is a fresh database (repotest.NewStore) seeded with the fixture at
// now's time. The package's TestMain must call repotest.Main.
func Store(t testing.TB, now clock.Clock) *repo.Store {
	t.Helper()
	store := repotest.NewStore(t)
	f, err := os.Open(FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fixture, err := seed.ParseFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&seed.Seeder{Store: store, Clock: now}).Seed(context.Background(), fixture); err != nil {
		t.Fatal(err)
	}
	return store
}
