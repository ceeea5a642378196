package repo

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// maxPrepared bounds how many statement texts a pool keeps prepared. The
// application has fewer than two hundred; the bound only keeps a statement
// built at run time with a text of its own each time from growing every
// connection's memory in Postgres (past it, statements run unprepared).
var maxPrepared = 512

// stmtCache holds a pool's prepared statements, one per statement text.
// Without it lib/pq sends every statement unnamed, and Postgres parses,
// analyses and plans it on every execution: under load that was two fifths
// of Postgres' CPU (docs/performance.md). A prepared statement is parsed
// once per connection, and Postgres keeps its plan once a generic plan
// costs no more than the custom ones (plan_cache_mode auto).
//
// database/sql prepares a statement on each connection the first time it
// runs there, inside a transaction too (Tx.StmtContext reuses the
// connection's), and forgets it with the connection.
type stmtCache struct {
	db *sqlx.DB
	mu sync.Mutex
	m  map[string]*sqlx.Stmt
	// pending are the texts being prepared in the background.
	pending map[string]bool
	// full is set once the bound was reached and logged.
	full bool
}

func newStmtCache(db *sqlx.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sqlx.Stmt{}, pending: map[string]bool{}}
}

// stmt returns query prepared for q's database or transaction, or nil when
// it is to run unprepared this time: q prepares nothing (SetPrepare(false),
// or a list query: list.page), the bound is reached, the prepare failed (the statement
// then runs as it is and reports its own error), or q is a transaction and
// the text is new.
//
// A text new to the pool is prepared on a connection of the pool's own
// choosing. A transaction must not wait for that connection: when every
// connection is held by a transaction doing the same, none would come. So
// a transaction runs a new text unprepared and has it prepared in the
// background, for the next time.
func (q Queries) stmt(ctx context.Context, query string) *sqlx.Stmt {
	c := q.stmts
	if c == nil {
		return nil
	}
	tx, inTx := q.q.(*sqlx.Tx)
	st, ok := c.lookup(query, inTx)
	switch {
	case ok && st == nil:
		return nil
	case !ok:
		if st = c.prepare(ctx, query); st == nil {
			return nil
		}
	}
	if inTx {
		return tx.StmtxContext(ctx, st)
	}
	return st
}

// lookup returns a text's statement; ok with a nil statement means it runs
// unprepared now (past the bound, or, from a transaction, new: its prepare
// is then started in the background). !ok means the caller prepares it.
func (c *stmtCache) lookup(query string, inTx bool) (st *sqlx.Stmt, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, true
	}
	if len(c.m)+len(c.pending) >= maxPrepared {
		if !c.full {
			c.full = true
			slog.Warn("prepared statements: the bound is reached; further statement texts run unprepared", "bound", maxPrepared)
		}
		return nil, true
	}
	if !inTx {
		return nil, false
	}
	if !c.pending[query] {
		c.pending[query] = true
		go c.prepare(context.Background(), query)
	}
	return nil, true
}

// prepare prepares a text on the pool and keeps it; nil when that failed.
// The cache's lock is never held across a call into database/sql: closing
// a statement takes the lock of each connection it was prepared on, whose
// holder may be waiting in Postgres for a transaction whose goroutine waits
// for the cache (a deadlock TestRoutingUnderConcurrentHandOffs met).
func (c *stmtCache) prepare(ctx context.Context, query string) *sqlx.Stmt {
	st, err := c.db.PreparexContext(ctx, query)
	c.mu.Lock()
	delete(c.pending, query)
	first, prepared := c.m[query]
	if err == nil && !prepared {
		c.m[query] = st
	}
	c.mu.Unlock()
	switch {
	case err != nil:
		return nil
	case prepared:
		// Another goroutine prepared it meanwhile: keep one.
		st.Close() //nolint:errcheck // a statement nobody used
		return first
	}
	return st
}

// SetPrepare turns prepared statements on (the default) or off. Off suits a
// connection pooler that cannot carry them, such as PgBouncer before 1.21
// in transaction mode (MSGSVC_DB_PREPARE=false).
func (s *Store) SetPrepare(on bool) {
	s.stmts, s.batched.stmts = nil, nil
	if on {
		s.stmts, s.batched.stmts = newStmtCache(s.DB), newStmtCache(s.batchDB)
	}
}

// ErrPreparedLost says statements prepared on a connection are not there
// when it runs them: a transaction pooler (PgBouncer in transaction mode,
// before 1.21 or with max_prepared_statements = 0) hands each transaction
// to whichever server connection is free, and a statement prepared on one
// is missing on the next, or, worse, another client's statement of the
// same name runs with this one's parameters.
var ErrPreparedLost = errors.New("prepared statements do not survive on this database connection (a transaction pooler such as PgBouncer before 1.21 or without max_prepared_statements): set MSGSVC_DB_PREPARE=false, or max_prepared_statements in PgBouncer 1.21 or later")

// CheckPrepared tells whether statements prepared on a pool connection run
// there later, also after the server connection behind it has changed
// hands: it returns ErrPreparedLost (wrapped) when not, and nil when
// statements are off (SetPrepare(false)).
//
// It prepares a statement on one connection and runs it, then holds the
// server connection that ran it in a transaction of another connection
// (a pooler hands out the connection it was last given back first), and
// runs the statement again: a pooler that does not carry prepared
// statements then sends it to a server connection without it, which fails
// or answers another statement's row. Directly on Postgres both runs answer
// from the connection's own server process.
func (s *Store) CheckPrepared(ctx context.Context) error {
	if s.stmts == nil {
		return nil
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	token := "msgsvc-probe-" + hex.EncodeToString(b)
	conn, err := s.DB.Connx(ctx)
	if err != nil {
		return err
	}
	// The probe's connections never go back to the pool: one may be
	// left in any state by a pooler that lost its statement.
	defer closeForGood(conn)
	st, err := conn.PreparexContext(ctx, `SELECT '`+token+`'::text, pg_backend_pid()`)
	if err != nil {
		return err
	}
	defer st.Close() //nolint:errcheck // the connection is closed after it
	run := func() (int, error) {
		var got string
		var pid int
		if err := st.QueryRowContext(ctx).Scan(&got, &pid); err != nil {
			return 0, fmt.Errorf("%w (%v)", ErrPreparedLost, err)
		}
		if got != token {
			return 0, fmt.Errorf("%w (a prepared statement answered another statement's row)", ErrPreparedLost)
		}
		return pid, nil
	}
	pid, err := run()
	if err != nil {
		return err
	}
	// Hold the server connection that ran it, when a pooler hands it to
	// another client connection (a few tries: a pooler may hand out
	// another idle connection first).
	for range 3 {
		other, err := s.DB.Connx(ctx)
		if err != nil {
			return err
		}
		defer closeForGood(other)
		tx, err := other.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // it only held a connection
		var otherPID int
		if err := tx.GetContext(ctx, &otherPID, `SELECT pg_backend_pid()`); err != nil {
			return err
		}
		if otherPID == pid {
			break
		}
	}
	if _, err := run(); err != nil {
		return err
	}
	return s.CheckBatchPool(ctx)
}

// ErrStartupOptions says the server refused the batches' connections for
// their session settings (the options startup parameter): PgBouncer takes
// it only when told to ignore it (ignore_startup_parameters; it cannot
// track these settings, which Postgres does not report to clients).
var ErrStartupOptions = errors.New("the database refused the webhook batches' session settings (the options startup parameter): with PgBouncer add options to ignore_startup_parameters (ignore_startup_parameters = extra_float_digits, options); or set MSGSVC_DB_PREPARE=false")

// CheckBatchPool connects the batches' pool (used with prepared statements
// on) and returns ErrStartupOptions (wrapped) when the server refuses its
// session settings.
func (s *Store) CheckBatchPool(ctx context.Context) error {
	err := s.batchDB.PingContext(ctx)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && (pqErr.Code == "08P01" || strings.Contains(pqErr.Message, "startup parameter")) {
		return fmt.Errorf("%w (%v)", ErrStartupOptions, err)
	}
	return err
}

// closeForGood closes a connection and keeps it out of the pool.
func closeForGood(conn *sqlx.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close() //nolint:errcheck // closing a connection dropped for good
}
