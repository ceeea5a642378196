package repo

import (
	"context"
	"fmt"
	"strings"
)

// list builds the WHERE, ORDER BY and LIMIT of a newest-first list query:
// conditions with ? placeholders, numbered as they are added.
type list struct {
	conds []string
	args  []any
}

// add appends a condition, numbering its ? placeholders.
func (l *list) add(cond string, values ...any) {
	for _, v := range values {
		l.args = append(l.args, v)
		cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(l.args)), 1)
	}
	l.conds = append(l.conds, cond)
}

// page runs a list query, head followed by newestFirst, into dest. It runs
// unprepared: the filters and cursors given make many texts, and the best
// plan depends on their values (a generic plan could not leave out the
// filters not given).
func (l *list) page(ctx context.Context, q Queries, dest any, head string, p Page, alias string) error {
	q.stmts = nil
	return q.selectRows(ctx, dest, head+l.newestFirst(p, alias), l.args...)
}

// newestFirst ends the query for one page: rows after the page's keyset
// position (alias is "" or a table alias with its dot), newest first, one
// more than the limit so the caller can tell whether more follow.
func (l *list) newestFirst(p Page, alias string) string {
	if p.After != nil {
		l.add("("+alias+"created_at, "+alias+"id) < (?, ?)", p.After.At, p.After.ID)
	}
	l.args = append(l.args, p.Limit+1)
	return fmt.Sprintf(" WHERE %s ORDER BY %screated_at DESC, %sid DESC LIMIT $%d",
		strings.Join(l.conds, " AND "), alias, alias, len(l.args))
}
