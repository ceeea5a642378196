package repo

import (
	"strings"
	"testing"
)

func TestLockFreeRead(t *testing.T) {
	for query, want := range map[string]bool{
		"SELECT id, updated_at FROM conversations WHERE id = $1":                      true,
		"\n\tselect c.id FROM conversations c LEFT JOIN LATERAL (SELECT 1) k ON true": true,
		"SELECT id FROM conversations WHERE id = $1 FOR UPDATE OF c":                  false,
		"SELECT id FROM conversations FOR KEY SHARE":                                  false,
		"SELECT id FROM conversations FOR NO KEY UPDATE":                              false,
		"WITH a AS (UPDATE conversations SET x = 1 RETURNING id) SELECT id FROM a":    false,
		"SELECT nextval('events_seq_seq')":                                            false,
		"SELECT pg_advisory_xact_lock(1)":                                             false,
		"INSERT INTO messages (id) VALUES ($1)":                                       false,
		"DELETE FROM messages":                                                        false,
	} {
		if got := lockFreeRead(query); got != want {
			t.Errorf("lockFreeRead(%q) = %v, want %v", query, got, want)
		}
	}
}

// TestCombineChecksTheVersionedUpdate: only the count of the
// update at a version goes through held_row_required.
func TestCombineChecksTheVersionedUpdate(t *testing.T) {
	w := []held{
		{query: "INSERT INTO messages (id) VALUES ($1)", args: []any{"m"}},
		{query: "UPDATE conversations SET x = $1 WHERE id = $2 AND xmin = $3::text::xid", args: []any{1, "c", "9"}, required: true},
		{query: "INSERT INTO events (id) VALUES ($1)", args: []any{"e"}},
	}
	query, args := combine(w)
	if len(args) != 5 {
		t.Errorf("%d arguments, want 5", len(args))
	}
	for _, want := range []string{"(SELECT count(*) FROM held0), held_row_required((SELECT count(*) FROM held1)), (SELECT count(*) FROM held2)",
		"xmin = $4::text::xid", "VALUES ($5)"} {
		if !strings.Contains(query, want) {
			t.Errorf("statement lacks %q:\n%s", want, query)
		}
	}
}

// TestCombineKeepsRequiredApart: the same held texts, once with a required
// write and once without, are two statements, whichever came first.
func TestCombineKeepsRequiredApart(t *testing.T) {
	w := func(required bool) []held {
		return []held{{query: "UPDATE keep_apart SET x = $1 WHERE id = $2", args: []any{1, "a"}, required: required},
			{query: "INSERT INTO keep_apart_too (id) VALUES ($1)", args: []any{"b"}}}
	}
	plain, _ := combine(w(false))
	required, _ := combine(w(true))
	if strings.Contains(plain, "held_row_required") || !strings.Contains(required, "held_row_required") {
		t.Errorf("without required:\n%s\nwith:\n%s", plain, required)
	}
}
