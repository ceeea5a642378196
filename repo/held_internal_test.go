package repo

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
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

// execOnly is a transaction whose statements all fail with err, or change
// rows rows; it serves ExecContext only, which a single held write uses.
type execOnly struct {
	sqlx.ExtContext
	rows int64
	err  error
}

func (e execOnly) ExecContext(context.Context, string, ...any) (sql.Result, error) {
	if e.err != nil {
		return nil, e.err
	}
	return driver.RowsAffected(e.rows), nil
}

// TestHeldWriteErrorNamesItsStatement: a held write's error comes from a
// later statement or the commit, so it names the write's statement (its
// verb and table), and still unwraps to the error itself.
func TestHeldWriteErrorNamesItsStatement(t *testing.T) {
	refused := errors.New("refused")
	tests := []struct {
		name    string
		q       execOnly
		query   string
		rows    func(int64) error
		want    string
		wantErr error
	}{
		{"statement fails", execOnly{err: refused}, "INSERT INTO messages (id) VALUES ($1)", nil,
			"held write INSERT INTO messages: refused", refused},
		{"no row changed", execOnly{rows: 0}, "UPDATE conversations SET status = $2\n\t\tWHERE id = $1", oneRow,
			"held write UPDATE conversations: not found", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Queries{q: tt.q, held: &heldWrites{}}
			if err := q.execHeld(t.Context(), tt.query, tt.rows, "x", "open"); err != nil {
				t.Fatalf("holding the write: %v", err)
			}
			err := q.flush(t.Context())
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not unwrap to %v", err, tt.wantErr)
			}
		})
	}
}

// TestFailedNamesTheWriteOnTheTable: of writes sent together, the error
// names the one on the table Postgres names, or all of them when it names
// none of theirs.
func TestFailedNamesTheWriteOnTheTable(t *testing.T) {
	w := []held{
		{query: "UPDATE conversations SET status = $2 WHERE id = $1"},
		{query: "INSERT INTO messages (id) VALUES ($1)"},
		{query: "  INSERT INTO events (id) VALUES ($1)"},
	}
	all := "one of the held writes UPDATE conversations, INSERT INTO messages, INSERT INTO events: "
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unique violation", &ConflictError{Constraint: "events_pkey", Table: "events"},
			"held write INSERT INTO events: conflict on events_pkey"},
		{"postgres error", &pq.Error{Message: "null value in column", Table: "messages"},
			"held write INSERT INTO messages: pq: null value in column"},
		{"another table", &pq.Error{Message: "violates foreign key", Table: "contacts"},
			all + "pq: violates foreign key"},
		{"no table", errors.New("connection reset"), all + "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := failed(w, tt.err).Error(); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
	if err := failed(w, nil); err != nil {
		t.Errorf("failed(w, nil) = %v, want nil", err)
	}
	long := "SELECT set_config('a', 'b', true), now(), clock_timestamp()"
	if got, want := statementName(long), "SELECT set_config('a', 'b', true), now()…"; got != want {
		t.Errorf("statementName(%q) = %q, want %q", long, got, want)
	}
}
