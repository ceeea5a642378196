package repotest

import (
	"strings"
	"testing"
)

// TEST_DATABASE_URL's database name names the tests' databases; its server
// (through its postgres database) is where they are made.
func TestPrefixAndAdminURLFollowTestDatabaseURL(t *testing.T) {
	for _, c := range []struct{ url, prefix, admin string }{
		{"", "msgsvc_test", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"},
		{"postgres://ci@db.internal:6543/ci_run_42?sslmode=disable", "ci_run_42", "postgres://ci@db.internal:6543/postgres?sslmode=disable"},
		{"postgres://ci@db.internal:6543/postgres", "msgsvc_test", "postgres://ci@db.internal:6543/postgres"},
		{"postgres://ci@db.internal/Team-A.tests", "team_a_tests", "postgres://ci@db.internal/postgres"},
		{"postgres://ci@db.internal/" + strings.Repeat("x", 60), strings.Repeat("x", 40), "postgres://ci@db.internal/postgres"},
	} {
		t.Setenv("TEST_DATABASE_URL", c.url)
		if got := Prefix(); got != c.prefix {
			t.Errorf("%q: prefix %q, want %q", c.url, got, c.prefix)
		}
		if got := AdminURL(); got != c.admin {
			t.Errorf("%q: admin URL %q, want %q", c.url, got, c.admin)
		}
	}
}
