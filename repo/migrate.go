package repo

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock names the advisory lock migrations take.
const migrationLock = 727001

// Migrate applies the numbered migrations not yet applied, each in its own
// transaction. Each transaction first takes a transaction-level advisory
// lock and then looks whether its migration is applied, so concurrent runs
// apply each migration once, one after the other. The lock lives and dies
// with the transaction, which a transaction pooler (PgBouncer in
// transaction mode) keeps on one server connection: it works through one,
// where a session lock would be taken on one server connection and
// released on another.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.migrate(ctx)
	return err
}

// MigrateAnalyzed applies the migrations as Migrate does and, when it
// applied any, analyses the database (ANALYZE), so that the planner has
// statistics for the tables and indexes they made or changed at once,
// without waiting for autovacuum (which may be off). It reports how many
// migrations it applied. `msgsvc migrate` runs it.
func (s *Store) MigrateAnalyzed(ctx context.Context) (int, error) {
	applied, err := s.migrate(ctx)
	if err != nil || applied == 0 {
		return applied, err
	}
	if _, err := s.DB.ExecContext(ctx, `ANALYZE`); err != nil {
		return applied, fmt.Errorf("analyse after the migrations: %w", err)
	}
	return applied, nil
}

func (s *Store) migrate(ctx context.Context) (int, error) {
	list, err := migrationList(migrations)
	if err != nil {
		return 0, err
	}
	err = s.migrationTx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range list {
		ran := false
		err := s.migrationTx(ctx, func(tx *sqlx.Tx) error {
			var applied bool
			if err := tx.GetContext(ctx, &applied, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.version); err != nil || applied {
				return err
			}
			ran = true
			body, err := migrations.ReadFile("migrations/" + m.name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.version)
			return err
		})
		if err != nil {
			return n, err
		}
		if ran {
			n++
		}
	}
	return n, nil
}

// migrationTx runs fn in a transaction holding the migration lock.
func (s *Store) migrationTx(ctx context.Context, fn func(*sqlx.Tx) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ErrSchemaBehind says the database lacks migrations this binary ships:
// `msgsvc migrate` has not run since the binary was upgraded.
var ErrSchemaBehind = errors.New("the database schema is behind this binary's migrations; run `msgsvc migrate`")

// SchemaCurrent returns ErrSchemaBehind (wrapped, naming the versions) when
// a migration this binary ships is not applied. A database migrated past
// the binary (a newer binary ran migrate first) is current: migrations only
// add, so the older binary runs on it.
func (q Queries) SchemaCurrent(ctx context.Context) error {
	list, err := migrationList(migrations)
	if err != nil {
		return err
	}
	var applied []int64
	err = q.selectRows(ctx, &applied, `SELECT version FROM schema_migrations`)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "42P01" { // undefined_table
		return fmt.Errorf("%w (no migration applied)", ErrSchemaBehind)
	}
	if err != nil {
		return err
	}
	var missing []string
	for _, m := range list {
		if !slices.Contains(applied, int64(m.version)) {
			missing = append(missing, strconv.Itoa(m.version))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w (missing %s)", ErrSchemaBehind, strings.Join(missing, ", "))
	}
	return nil
}

// migration is one file of migrations/ and the version its name starts with.
type migration struct {
	name    string
	version int
}

// migrationList returns the migrations in version order. Two files with one
// number are refused: schema_migrations records versions, so the second
// would silently never run.
func migrationList(fsys fs.ReadDirFS) ([]migration, error) {
	entries, err := fsys.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	list := make([]migration, 0, len(entries))
	seen := map[int]string{}
	for _, e := range entries {
		version, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		if other, ok := seen[version]; ok {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, e.Name(), version)
		}
		seen[version] = e.Name()
		list = append(list, migration{e.Name(), version})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].version < list[j].version })
	return list, nil
}

// ErrReadOnly says the database takes no writes: a standby, or a session
// with default_transaction_read_only on.
var ErrReadOnly = errors.New("the database session is read-only (a standby, or default_transaction_read_only)")

// Ready is the database's readiness: it answers, takes writes
// (ErrReadOnly when not), and has every migration this binary ships
// (ErrSchemaBehind when not).
func (s *Store) Ready(ctx context.Context) error {
	var readOnly string
	if err := s.DB.GetContext(ctx, &readOnly, `SELECT current_setting('transaction_read_only')`); err != nil {
		return err
	}
	if readOnly == "on" {
		return ErrReadOnly
	}
	return s.SchemaCurrent(ctx)
}
