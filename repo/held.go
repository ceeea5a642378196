package repo

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lib/pq"
)

// Held writes. Inside a transaction, a write whose caller needs no answer
// from it (a message or event inserted, a conversation saved) is held back
// and goes to Postgres with the others held after it, as one statement of
// data-modifying CTEs, when the transaction next reads or commits: a reply
// stores its conversation, message and event in one round trip instead of
// three (the history of docs/performance.md).
//
// A statement that runs in the same transaction always sees what was held
// before it, because it sends them first; only the error of a held write
// comes later, from that statement or from the commit, naming the write's
// statement (heldError). What the CTEs of one
// statement cannot do is see each other's changes, or change one row twice:
// so only INSERTs of new rows and UPDATEs by primary key are held, and a
// statement already held is sent before the same statement is held again.

// held is one write held back, with its positional parameters.
type held struct {
	query string
	args  []any
	// rows checks how many rows it changed, once it ran; nil takes any.
	rows func(int64) error
	// required marks a write that must change a row, checked in its own
	// statement (holdRequired, optimistic.go).
	required bool
}

// heldWrites are one transaction's held writes, in order, or an optimistic
// run's (optimistic.go), with whether that run was given up, and whether
// for a change of the row it wrote at a version.
type heldWrites struct {
	w                          []held
	optimistic, needsTx, stale bool
}

// execHeld runs a write at once outside a transaction; inside one it holds
// it until the transaction's next statement or its commit.
func (q Queries) execHeld(ctx context.Context, query string, rows func(int64) error, args ...any) error {
	if q.held == nil {
		n, err := q.exec(ctx, query, args...)
		if err == nil && rows != nil {
			err = rows(n)
		}
		return err
	}
	if q.held.optimistic && rows != nil {
		return q.giveUp() // its count is checked after it ran: too late alone
	}
	for _, h := range q.held.w {
		if h.query == query {
			if err := q.flush(ctx); err != nil {
				return err
			}
			break
		}
	}
	q.held.w = append(q.held.w, held{query: query, args: args, rows: rows})
	return nil
}

// flush sends the held writes: one alone as it is, several as one statement
// that answers each one's row count. Their error comes from a later
// statement or the commit, so it names the held write that failed
// (heldError).
func (q Queries) flush(ctx context.Context) error {
	if q.held == nil || len(q.held.w) == 0 {
		return nil
	}
	if q.held.optimistic {
		return q.giveUp() // a statement that would see them, or a write twice
	}
	w := q.held.w
	q.held.w = nil
	if len(w) == 1 {
		n, err := q.run(ctx, w[0].query, w[0].args...)
		if err == nil && w[0].rows != nil {
			err = w[0].rows(n)
		}
		return failed(w, err)
	}
	query, args := combine(w)
	counts := make([]int64, len(w))
	dest := make([]any, len(w))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := q.scanRow(ctx, dest, query, args...); err != nil {
		return failed(w, err)
	}
	for i, h := range w {
		if h.rows == nil {
			continue
		}
		if err := h.rows(counts[i]); err != nil {
			return failed(w[i:i+1], err)
		}
	}
	return nil
}

// heldError is the error of a held write, naming its statement by verb and
// table ("INSERT INTO messages"), or the statements sent together when
// Postgres does not say which of them failed. It unwraps to the error
// itself (ErrNotFound, a *ConflictError, a *pq.Error …).
type heldError struct {
	statements []string
	err        error
}

func (e *heldError) Error() string {
	if len(e.statements) == 1 {
		return "held write " + e.statements[0] + ": " + e.err.Error()
	}
	return "one of the held writes " + strings.Join(e.statements, ", ") + ": " + e.err.Error()
}

func (e *heldError) Unwrap() error { return e.err }

// failed is err (nil stays nil) naming the held writes of w it came from:
// those on the table Postgres names in the error, when it names one of
// theirs, or else all of w.
func failed(w []held, err error) error {
	if err == nil {
		return nil
	}
	var names, onTable []string
	table := errorTable(err)
	for _, h := range w {
		name := statementName(h.query)
		names = append(names, name)
		if table != "" && strings.HasSuffix(name, " "+table) {
			onTable = append(onTable, name)
		}
	}
	if len(onTable) > 0 {
		names = onTable
	}
	return &heldError{statements: names, err: err}
}

// errorTable is the table Postgres names in err, or "".
func errorTable(err error) string {
	var conflict *ConflictError
	if errors.As(err, &conflict) {
		return conflict.Table
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return pqErr.Table
	}
	return ""
}

// heldVerb reads a held statement's verb and table.
var heldVerb = regexp.MustCompile(`^\s*(INSERT INTO|UPDATE)\s+(\w+)`)

// statementName is a held statement's verb and table, or its start.
func statementName(query string) string {
	if m := heldVerb.FindStringSubmatch(query); m != nil {
		return m[1] + " " + m[2]
	}
	name := strings.Join(strings.Fields(query), " ")
	if len(name) > 40 {
		name = name[:40] + "…"
	}
	return name
}

// parameter is a positional parameter in a statement's text. Held
// statements are the package's own and carry no "$" in a literal.
var parameter = regexp.MustCompile(`\$(\d+)`)

// combine writes held statements as one: each a CTE returning a row per row
// it changed, their parameters renumbered in turn, and a select of every
// CTE's count, in order.
func combine(w []held) (string, []any) {
	var key strings.Builder
	n := 0
	for _, h := range w {
		key.WriteString(h.query)
		key.WriteByte(0)
		if h.required { // the same text makes another statement then
			key.WriteByte(1)
		}
		n += len(h.args)
	}
	args := make([]any, 0, n)
	for _, h := range w {
		args = append(args, h.args...)
	}
	if query, ok := combinedQueries.Load(key.String()); ok {
		return query.(string), args
	}
	query := combineText(w)
	if combinedCount.Add(1) <= maxCombined {
		combinedQueries.Store(key.String(), query)
	}
	return query, args
}

// combinedQueries keeps the text combine made for each sequence of held
// statements (their texts joined), so that a send does not renumber its
// statements' parameters again: a handful of sequences come back all the
// time. At most maxCombined are kept.
var (
	combinedQueries sync.Map
	combinedCount   atomic.Int64
)

const maxCombined = 1000

// combineText is the statement of held writes w: each one a CTE, its
// parameters renumbered after those of the ones before it, and the count
// of a required write (optimistic.go) through held_row_required.
func combineText(w []held) string {
	var b strings.Builder
	var args int
	counts := make([]string, len(w))
	for i, h := range w {
		offset := args
		name := "held" + strconv.Itoa(i)
		if i == 0 {
			b.WriteString("WITH ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(name + " AS (")
		b.WriteString(parameter.ReplaceAllStringFunc(h.query, func(p string) string {
			n, _ := strconv.Atoi(p[1:])
			return "$" + strconv.Itoa(n+offset)
		}))
		b.WriteString(" RETURNING 1)")
		counts[i] = "(SELECT count(*) FROM " + name + ")"
		if h.required {
			// Its statement fails whole when it changed no row.
			counts[i] = "held_row_required(" + counts[i] + ")"
		}
		args += len(h.args)
	}
	b.WriteString(" SELECT " + strings.Join(counts, ", "))
	return b.String()
}

// oneRow is the row check of a write that must change exactly one row, as
// an UPDATE by id of a row the caller read: none changed is ErrNotFound.
func oneRow(n int64) error {
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
