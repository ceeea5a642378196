package repo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lib/pq"
)

// maintenanceDB is the database every Postgres server has, where a missing
// one can be created from.
const maintenanceDB = "postgres"

// EnsureDatabase creates the database dsn names when the server does not
// have it, connecting as the same user to the server's postgres database;
// it reports whether it created it. A database that exists is left alone.
func EnsureDatabase(ctx context.Context, dsn string) (bool, error) {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return false, fmt.Errorf("parse database URL: %w", err)
	}
	name := cfg.Database
	if name == "" {
		name = cfg.User // Postgres' default database is the user's name
	}
	if err := ping(ctx, cfg); err == nil || !isMissingDatabase(err) {
		return false, err
	}
	admin := cfg.Clone()
	admin.Database = maintenanceDB
	db, err := openConfig(admin)
	if err != nil {
		return false, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE `+pq.QuoteIdentifier(name)); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "42P04" { // duplicate_database: a concurrent start made it
			return false, nil
		}
		return false, fmt.Errorf("create database %q: %w", name, err)
	}
	return true, nil
}

func openConfig(cfg pq.Config) (*sql.DB, error) {
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

func ping(ctx context.Context, cfg pq.Config) error {
	db, err := openConfig(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// isMissingDatabase is Postgres' invalid_catalog_name: the database named
// in the connection does not exist.
func isMissingDatabase(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "3D000"
}
