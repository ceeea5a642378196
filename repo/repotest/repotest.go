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
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the driver
	"github.com/msgsvc/msgsvc/repo"
)

// AdminURL is the server tests create their databases on; TEST_DATABASE_URL
// overrides it.
func AdminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
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

// template migrates one database per test binary; every test clones it.
func template(t testing.TB) string {
	templateOnce.Do(func() {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		templateName = "msgsvc_tpl_" + hex.EncodeToString(b)
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
	name := "msgsvc_t_" + randomSuffix()
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

// Main runs a package's tests and then drops the template database.
func Main(m *testing.M) {
	code := m.Run()
	if templateName != "" {
		dropDatabase(templateName)
	}
	os.Exit(code)
}
