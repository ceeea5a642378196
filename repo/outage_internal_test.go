package repo

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lib/pq"
)

// translate names the database's own outages (read-only, behind the
// migrations) so that callers answer 503, and leaves bugs as they are.
func TestTranslateOutages(t *testing.T) {
	for name, tc := range map[string]struct {
		err      error
		is       error
		outage   bool
		conflict bool
	}{
		"write in a read-only transaction": {err: &pq.Error{Code: "25006", Message: "cannot execute INSERT in a read-only transaction"}, is: ErrReadOnly, outage: true},
		"standby refuses read-write":       {err: &pq.Error{Code: "0A000", Message: "cannot set transaction read-write mode during recovery"}, is: ErrReadOnly, outage: true},
		"undefined table":                  {err: &pq.Error{Code: "42P01", Message: `relation "messages" does not exist`}, is: ErrSchemaBehind, outage: true},
		"undefined column":                 {err: &pq.Error{Code: "42703"}, is: ErrSchemaBehind, outage: true},
		"another unsupported feature":      {err: &pq.Error{Code: "0A000", Message: "FOR UPDATE is not allowed with GROUP BY clause"}},
		"syntax error":                     {err: &pq.Error{Code: "42601"}},
		"unique violation":                 {err: &pq.Error{Code: "23505", Constraint: "messages_pkey"}, conflict: true},
	} {
		got := translate(fmt.Errorf("query: %w", tc.err))
		if tc.is != nil && !errors.Is(got, tc.is) {
			t.Errorf("%s: %v is not %v", name, got, tc.is)
		}
		var pqErr *pq.Error
		if !tc.conflict && !errors.As(got, &pqErr) {
			t.Errorf("%s: the Postgres error is lost: %v", name, got)
		}
		var conflict *ConflictError
		if errors.As(got, &conflict) != tc.conflict {
			t.Errorf("%s: conflict %v", name, got)
		}
		if Outage(got) != tc.outage {
			t.Errorf("%s: Outage(%v) = %v, want %v", name, got, !tc.outage, tc.outage)
		}
	}
}
