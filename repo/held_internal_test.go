package repo

import (
	"reflect"
	"testing"
)

// TestCombineRenumbersParameters: held statements become CTEs of one
// statement, each one's parameters numbered after the ones before it, and
// the statement answers each CTE's row count in order.
func TestCombineRenumbersParameters(t *testing.T) {
	query, args := combine([]held{
		{query: "UPDATE t SET a = $2 WHERE id = $1", args: []any{"x", 1}},
		{query: "INSERT INTO u (id, b, c) VALUES ($1, $2, $1)", args: []any{"y", 2}},
		{query: "INSERT INTO v (id) VALUES ($1)", args: []any{"z"}},
	})
	want := "WITH held0 AS (UPDATE t SET a = $2 WHERE id = $1 RETURNING 1), " +
		"held1 AS (INSERT INTO u (id, b, c) VALUES ($3, $4, $3) RETURNING 1), " +
		"held2 AS (INSERT INTO v (id) VALUES ($5) RETURNING 1) " +
		"SELECT (SELECT count(*) FROM held0), (SELECT count(*) FROM held1), (SELECT count(*) FROM held2)"
	if query != want {
		t.Errorf("combined\n%s\nwant\n%s", query, want)
	}
	if wantArgs := []any{"x", 1, "y", 2, "z"}; !reflect.DeepEqual(args, wantArgs) {
		t.Errorf("arguments %v, want %v", args, wantArgs)
	}
}

// TestCombineRenumbersPastNine: $1 of a later statement does not become
// $1x of an earlier one's numbering, and $10 is read whole.
func TestCombineRenumbersPastNine(t *testing.T) {
	first := held{query: "UPDATE t SET a = $10 WHERE id = $1", args: make([]any, 10)}
	query, _ := combine([]held{first, {query: "INSERT INTO u VALUES ($1)", args: []any{1}}})
	want := "WITH held0 AS (UPDATE t SET a = $10 WHERE id = $1 RETURNING 1), " +
		"held1 AS (INSERT INTO u VALUES ($11) RETURNING 1) SELECT (SELECT count(*) FROM held0), (SELECT count(*) FROM held1)"
	if query != want {
		t.Errorf("combined\n%s\nwant\n%s", query, want)
	}
}

// TestOneRow: an UPDATE of a row the caller read changes it or finds it
// gone.
func TestOneRow(t *testing.T) {
	if err := oneRow(1); err != nil {
		t.Errorf("one row changed: %v", err)
	}
	if err := oneRow(0); err != ErrNotFound {
		t.Errorf("no row changed: %v, want ErrNotFound", err)
	}
}
