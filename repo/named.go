package repo

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// sqlxNamedExec runs a statement with :name parameters bound from a struct.
func sqlxNamedExec(ctx context.Context, q Queries, query string, arg any) (int64, error) {
	q.tally()
	res, err := sqlx.NamedExecContext(ctx, q.q, query, arg)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}
