package repo

import (
	"context"
	"fmt"
	"strings"
)

// SealedValue is one value sealed at rest (msgsvc rekey).
type SealedValue struct {
	// Column is where it is kept, as table.column.
	Column string
	// Row is the row's key, in the order of the column's sealedColumn.key.
	Row []string
	// Value is the sealed value.
	Value []byte
}

// sealedColumn is a column of sealed values and the key of its rows.
type sealedColumn struct {
	table, column string
	key           []string
	// text: the column is text (graph/seal's base64), else bytea.
	text bool
}

// sealedColumns are every column that holds sealed values: provider
// credentials, DKIM keys and widget identity secrets (graph/seal, under
// MSGSVC_ENCRYPTION_KEY) and webhook signing secrets (graph/webhook, under
// MSGSVC_SECRET).
var sealedColumns = []sealedColumn{
	{"account_providers", "sealed", []string{"workspace_id", "account_id"}, true},
	{"email_domains", "dkim_key_sealed", []string{"workspace_id", "domain"}, true},
	{"website_widgets", "identity_secret_sealed", []string{"website_id"}, true},
	{"webhook_endpoints", "secret", []string{"id"}, false},
	{"webhook_endpoints", "previous_secret", []string{"id"}, false},
}

// Name is the column as table.column.
func (c sealedColumn) Name() string { return c.table + "." + c.column }

// Reseal hands every sealed value to reseal, in one transaction with each
// row locked, and stores those reseal changed; it returns how many changed
// per column. An error of reseal for a value (it opens with no key) is
// collected in skipped, the value left as it is; any other error rolls all
// back.
func (s *Store) Reseal(ctx context.Context, reseal func(SealedValue) ([]byte, bool, error)) (changed map[string]int, skipped []error, err error) {
	changed = map[string]int{}
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return nil, nil, translate(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, c := range sealedColumns {
		keys := strings.Join(c.key, ", ")
		where := c.column + " IS NOT NULL"
		if c.text {
			where += " AND " + c.column + " <> ''"
		}
		rows, err := tx.QueryxContext(ctx, fmt.Sprintf(`SELECT %s, %s FROM %s WHERE %s ORDER BY %s FOR UPDATE`,
			keys, c.column, c.table, where, keys))
		if err != nil {
			return nil, nil, translate(err)
		}
		var values []SealedValue
		for rows.Next() {
			v := SealedValue{Column: c.Name(), Row: make([]string, len(c.key))}
			dest := make([]any, 0, len(c.key)+1)
			for i := range v.Row {
				dest = append(dest, &v.Row[i])
			}
			if err := rows.Scan(append(dest, &v.Value)...); err != nil {
				rows.Close()
				return nil, nil, err
			}
			values = append(values, v)
		}
		if err := rows.Close(); err != nil {
			return nil, nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, nil, translate(err)
		}
		conds := make([]string, len(c.key))
		for i, k := range c.key {
			conds[i] = fmt.Sprintf("%s = $%d", k, i+2)
		}
		update := fmt.Sprintf(`UPDATE %s SET %s = $1 WHERE %s`, c.table, c.column, strings.Join(conds, " AND "))
		for _, v := range values {
			out, ok, err := reseal(v)
			if err != nil {
				skipped = append(skipped, fmt.Errorf("%s of %s: %w", v.Column, strings.Join(v.Row, "/"), err))
				continue
			}
			if !ok {
				continue
			}
			args := []any{out}
			if c.text {
				args[0] = string(out)
			}
			for _, k := range v.Row {
				args = append(args, k)
			}
			if _, err := tx.ExecContext(ctx, update, args...); err != nil {
				return nil, nil, translate(err)
			}
			changed[c.Name()]++
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, translate(err)
	}
	return changed, skipped, nil
}
