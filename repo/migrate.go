package repo

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies the numbered migrations not yet applied, each in its own
// transaction, under an advisory lock so concurrent starts do not race.
func (s *Store) Migrate(ctx context.Context) error {
	conn, err := s.DB.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(727001)`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(727001)`) //nolint:errcheck
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	list, err := migrationList(migrations)
	if err != nil {
		return err
	}
	for _, m := range list {
		name, version := m.name, m.version
		var applied bool
		if err := conn.GetContext(ctx, &applied, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version); err != nil {
			return err
		}
		if applied {
			continue
		}
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			return err
		}
		tx, err := conn.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback() //nolint:errcheck
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version); err != nil {
			tx.Rollback() //nolint:errcheck
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
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
