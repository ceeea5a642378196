// Package repotest gives each test its own Postgres database, cloned from a
// migrated template, so tests run in parallel against the real server.
package repotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the driver
	"github.com/msgsvc/msgsvc/repo"
)

// defaultTestDatabase is TEST_DATABASE_URL when it is unset.
const defaultTestDatabase = "postgres://postgres@127.0.0.1:5432/msgsvc_test?sslmode=disable"

// testDatabase is TEST_DATABASE_URL, or its default.
func testDatabase() *url.URL {
	v := os.Getenv("TEST_DATABASE_URL")
	if v == "" {
		v = defaultTestDatabase
	}
	u, err := url.Parse(v)
	if err != nil {
		panic(fmt.Sprintf("TEST_DATABASE_URL: %v", err))
	}
	return u
}

// AdminURL is the server tests create their databases on (TEST_DATABASE_URL's
// server), through its maintenance database postgres.
func AdminURL() string {
	return withDatabase(testDatabase().String(), "postgres")
}

// Prefix is what the name of every database the tests create starts with:
// TEST_DATABASE_URL's database name (msgsvc_test by default), as a lower
// case identifier, so a shared server keeps the tests' databases apart.
func Prefix() string {
	name := strings.TrimPrefix(testDatabase().Path, "/")
	if name == "" || name == "postgres" {
		name = "msgsvc_test"
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, name)
	if len(name) > 40 { // Postgres names are at most 63 bytes
		name = name[:40]
	}
	return name
}

func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// SkipShort skips t in -short mode (make test-unit), which runs only the
// tests that need no server, browser or build: what names the one t needs.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: the test needs %s", what)
	}
}

// NeedsPostgres skips t in -short mode: it needs TEST_DATABASE_URL's server.
// The helpers that create databases call it.
func NeedsPostgres(t testing.TB) {
	t.Helper()
	SkipShort(t, "Postgres (TEST_DATABASE_URL)")
}

// NeedsRedis skips t in -short mode: it needs the Redis of TEST_REDIS_URL.
func NeedsRedis(t testing.TB) {
	t.Helper()
	SkipShort(t, "Redis (TEST_REDIS_URL)")
}

// template migrates one database per test binary; every test clones it.
func template(t testing.TB) string {
	t.Helper()
	NeedsPostgres(t)
	templateOnce.Do(func() {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		templateName = Prefix() + "_tpl_" + hex.EncodeToString(b)
		admin, err := sqlx.Connect("postgres", AdminURL())
		if err != nil {
			templateErr = err
			return
		}
		defer admin.Close()
		if _, templateErr = admin.Exec(`CREATE DATABASE ` + templateName); templateErr != nil {
			return
		}
		store, err := repo.Open(context.Background(), withDatabase(AdminURL(), templateName))
		if err != nil {
			templateErr = err
			return
		}
		templateErr = store.Migrate(context.Background())
		store.Close()
	})
	if templateErr != nil {
		t.Fatalf("template database: %v", templateErr)
	}
	return templateName
}

var cloneMu sync.Mutex

// NewStore returns a store over a fresh, migrated database that is dropped
// when the test ends.
func NewStore(t testing.TB) *repo.Store {
	t.Helper()
	store, _ := NewStoreURL(t)
	return store
}

// NewStoreURL is NewStore that also returns the database URL, for tests that
// start msgsvc processes of their own.
func NewStoreURL(t testing.TB) (*repo.Store, string) {
	t.Helper()
	name := NewDatabase(t)
	dsn := withDatabase(AdminURL(), name)
	store, err := repo.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store, dsn
}

// NewDatabase creates a fresh, migrated database, dropped when the test
// ends (after what the test's later cleanups close), and returns its name.
func NewDatabase(t testing.TB) string {
	t.Helper()
	tpl := template(t)
	name := Prefix() + "_t_" + randomSuffix()
	admin := connectAdmin(t)
	defer admin.Close()
	// CREATE DATABASE ... TEMPLATE needs the template to have no other
	// sessions, so clones are made one at a time.
	cloneMu.Lock()
	_, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, tpl))
	cloneMu.Unlock()
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(name) })
	return name
}

// URL is the URL of a database of the test server.
func URL(name string) string { return withDatabase(AdminURL(), name) }

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func connectAdmin(t testing.TB) *sqlx.DB {
	t.Helper()
	NeedsPostgres(t)
	admin, err := sqlx.Connect("postgres", AdminURL())
	if err != nil {
		t.Fatalf("connect to %s: %v", AdminURL(), err)
	}
	return admin
}

// dropDatabase drops a test database, closing its sessions.
func dropDatabase(name string) {
	if admin, err := sqlx.Connect("postgres", AdminURL()); err == nil {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		admin.Close()
	}
}

// RedisURL is the Redis tests use (TEST_REDIS_URL, default database 9 of
// the local server); each test keeps to a key prefix of its own.
func RedisURL() string {
	if v := os.Getenv("TEST_REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/9"
}

// Main runs a package's tests and then drops the template database.
func Main(m *testing.M) {
	code := m.Run()
	if templateName != "" {
		dropDatabase(templateName)
	}
	os.Exit(code)
}

// Exec runs statements on store in turn, failing t at the first error.
func Exec(t testing.TB, store *repo.Store, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if _, err := store.DB.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Eventually waits, up to 15 s, for cond; work happens on other goroutines
// and processes, so the test polls rather than sleeps a fixed time.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
