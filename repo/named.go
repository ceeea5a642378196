package repo

import (
	"context"
	"reflect"

	"github.com/jmoiron/sqlx"
)

// sqlxNamedExec runs a statement with :name parameters bound from a struct.
// A struct's statement runs as a positional one, prepared like the others;
// a slice's (many rows per statement) has a text of its own for each
// number of rows, so it runs unprepared.
func sqlxNamedExec(ctx context.Context, q Queries, query string, arg any) (int64, error) {
	if k := reflect.ValueOf(arg).Kind(); k != reflect.Slice && k != reflect.Array {
		positional, args, err := sqlx.Named(query, arg)
		if err != nil {
			return 0, err
		}
		return q.exec(ctx, sqlx.Rebind(sqlx.DOLLAR, positional), args...)
	}
	if err := q.beforeStatement(ctx, query, true); err != nil {
		return 0, err
	}
	q.tally()
	res, err := sqlx.NamedExecContext(ctx, q.q, query, arg)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}
