package repo

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// ErrNotFound is returned when a row does not exist in the caller's scope.
var ErrNotFound = errors.New("not found")

// ConflictError is a unique violation, naming the constraint that refused it
// and its table.
type ConflictError struct{ Constraint, Table string }

func (e *ConflictError) Error() string { return "conflict on " + e.Constraint }

// translate maps database errors onto the package's errors, in one place.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) {
		return err
	}
	switch {
	case pqErr.Code == "23505":
		return &ConflictError{Constraint: pqErr.Constraint, Table: pqErr.Table}
	case readOnly(pqErr):
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	case schemaMissing(pqErr):
		return fmt.Errorf("%w: %w", ErrSchemaBehind, err)
	}
	return err
}

// readOnly says a Postgres error is a write refused by a read-only
// session: read_only_sql_transaction (a write under
// default_transaction_read_only, or on a standby), or a standby refusing a
// read-write transaction ("cannot set transaction read-write mode during
// recovery", feature_not_supported).
func readOnly(e *pq.Error) bool {
	return e.Code == "25006" || e.Code == "0A000" && strings.Contains(e.Message, "during recovery")
}

// schemaMissing says a Postgres error names a table, column or function
// the database lacks: the binary's statements are tested against its own
// migrations, so the database is behind them (`msgsvc migrate` has not
// run).
func schemaMissing(e *pq.Error) bool {
	switch e.Code {
	case "42P01", "42703", "42883": // undefined table, column, function
		return true
	}
	return false
}

// Outage says an error means the database cannot serve now, for a reason
// of its own and not a bug: it is read-only (ErrReadOnly: a standby, a
// read-only session) or behind this binary's migrations (ErrSchemaBehind).
// Connection failures are the caller's to tell (rest's unavailable).
func Outage(err error) bool {
	var pqErr *pq.Error
	return errors.Is(err, ErrReadOnly) || errors.Is(err, ErrSchemaBehind) ||
		errors.As(err, &pqErr) && readOnly(pqErr)
}

// Queries runs statements on the database or inside a transaction.
type Queries struct {
	q sqlx.ExtContext
	// count, when set, counts the statements run (tests bound query counts).
	count *atomic.Int64
	// stmts prepares the statements run (prepared.go); nil runs them as
	// they are.
	stmts *stmtCache
	// held are a transaction's writes held back (held.go); nil outside one.
	held *heldWrites
}

// Store is the database handle.
type Store struct {
	Queries
	DB *sqlx.DB

	batches
}

// Open connects to Postgres and checks the connection.
//
// Statements bind their parameters in one round trip (lib/pq's
// binary_parameters): without it every parameterised statement costs two,
// a prepare and then the execution (docs/performance.md). In that mode a
// []byte argument is sent in binary form, right for bytea and text columns;
// jsonb values go as text (JSONB.Value), as their binary form needs a
// version byte.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	cfg.BinaryParameters = true
	sqldb, err := openConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	db := sqlx.NewDb(sqldb, "postgres")
	if err := db.PingContext(ctx); err != nil {
		db.Close() //nolint:errcheck // the ping's error is the one to report
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	store := &Store{Queries: Queries{q: db, count: new(atomic.Int64)}, DB: db}
	if err := store.openBatches(cfg); err != nil {
		db.Close() //nolint:errcheck // the batches' error is the one to report
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	store.SetMaxConns(40)
	store.SetPrepare(true)
	return store, nil
}

// connIdleTime is how long a pool connection may stay unused before it is
// closed.
const connIdleTime = 5 * time.Minute

// SetMaxConns bounds the pool's open connections to n (Open starts at 40).
// Every one may stay open while idle, until connIdleTime has passed: a
// burst that needs more connections than a smaller idle bound would close
// them as they come back and open them again for the next statements, and
// a Postgres connection costs a process fork, its authentication and cold
// caches (the history of docs/performance.md).
func (s *Store) SetMaxConns(n int) {
	s.DB.SetMaxOpenConns(n)
	s.DB.SetMaxIdleConns(n)
	s.DB.SetConnMaxIdleTime(connIdleTime)
}

// Close closes the pool.
func (s *Store) Close() error { return errors.Join(s.DB.Close(), s.batchDB.Close()) }

// InTx runs fn in one transaction, committed only when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(Queries) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	q := Queries{q: tx, count: s.count, stmts: s.stmts, held: &heldWrites{}}
	if err := fn(q); err != nil {
		return err
	}
	if err := q.flush(ctx); err != nil {
		return err
	}
	return translate(tx.Commit())
}

// Statements returns how many statements the store has run.
func (s *Store) Statements() int64 { return s.count.Load() }

func (q Queries) tally() {
	if q.count != nil {
		q.count.Add(1)
	}
}

func (q Queries) get(ctx context.Context, dest any, query string, args ...any) error {
	if err := q.beforeStatement(ctx, query, false); err != nil {
		return err
	}
	q.tally()
	if st := q.stmt(ctx, query); st != nil {
		return translate(st.GetContext(ctx, dest, args...))
	}
	return translate(sqlx.GetContext(ctx, q.q, dest, query, args...))
}

func (q Queries) selectRows(ctx context.Context, dest any, query string, args ...any) error {
	if err := q.beforeStatement(ctx, query, false); err != nil {
		return err
	}
	q.tally()
	if st := q.stmt(ctx, query); st != nil {
		return translate(st.SelectContext(ctx, dest, args...))
	}
	return translate(sqlx.SelectContext(ctx, q.q, dest, query, args...))
}

func (q Queries) exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := q.beforeStatement(ctx, query, true); err != nil {
		return 0, err
	}
	return q.run(ctx, query, args...)
}

// run executes a statement and returns how many rows it changed.
func (q Queries) run(ctx context.Context, query string, args ...any) (int64, error) {
	q.tally()
	var res sql.Result
	var err error
	if st := q.stmt(ctx, query); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = q.q.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// scanRow runs a statement for one row and scans its columns into dest.
func (q Queries) scanRow(ctx context.Context, dest []any, query string, args ...any) error {
	q.tally()
	if st := q.stmt(ctx, query); st != nil {
		return translate(st.QueryRowxContext(ctx, args...).Scan(dest...))
	}
	return translate(q.q.QueryRowxContext(ctx, query, args...).Scan(dest...))
}

// Scope is what one caller may see: a workspace, a mode, and the key's
// channel and website restrictions (empty means all).
type Scope struct {
	WorkspaceID string
	Livemode    bool
	Channels    []string
	WebsiteIDs  []string
}

// array binds a string slice as a Postgres array; nil binds as empty, not
// NULL, so "no restriction" checks stay true.
func array(s []string) pq.StringArray {
	if s == nil {
		return pq.StringArray{}
	}
	return pq.StringArray(s)
}

// nullableArray binds a slice of optional strings as a Postgres text
// array whose nil elements are NULL (pq.StringArray has no NULL element).
func nullableArray(s []*string) pq.GenericArray { return pq.GenericArray{A: s} }

// one runs a query for a single row; it returns nil with the error.
func one[T any](ctx context.Context, q Queries, query string, args ...any) (*T, error) {
	var v T
	if err := q.get(ctx, &v, query, args...); err != nil {
		return nil, err
	}
	return &v, nil
}

// qualified prefixes each column of a column list with a table alias, for
// queries that join: qualified("m", "id, text") is "m.id, m.text".
func qualified(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// nested renames each column of a column list "prefix.name", for a row
// struct that holds a joined table's row in a field tagged prefix: sqlx maps
// the column "p.x" to the field tagged x inside the field tagged p, so the
// joined table's columns do not meet columns of the same name.
// nested("k", "k.id, ct.name AS contact_name") is
// `k.id AS "k.id", ct.name AS "k.contact_name"`.
func nested(prefix, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		expr := strings.TrimSpace(p)
		name := expr[strings.LastIndex(expr, ".")+1:]
		if j := strings.LastIndex(strings.ToUpper(expr), " AS "); j >= 0 {
			expr, name = expr[:j], strings.TrimSpace(expr[j+4:])
		}
		parts[i] = fmt.Sprintf(`%s AS "%s.%s"`, expr, prefix, name)
	}
	return strings.Join(parts, ", ")
}

// JSONB is a jsonb column that may be NULL (nil).
type JSONB []byte

// Scan reads a jsonb value; NULL becomes nil.
func (j *JSONB) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append(JSONB(nil), v...)
	case string:
		*j = JSONB(v)
	default:
		return fmt.Errorf("JSONB: cannot scan %T", src)
	}
	return nil
}

// Value writes nil as NULL, and a value as text (see Open).
func (j JSONB) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return string(j), nil
}
