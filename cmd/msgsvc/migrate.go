package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/repo"
)

// migrate creates the database DATABASE_URL names when the server lacks it,
// then applies the migrations.
func migrate(ctx context.Context, cfg *Config) error {
	created, err := repo.EnsureDatabase(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	if created {
		slog.Info("created the database DATABASE_URL names")
	}
	// Migrations run no prepared statement: a pooler that cannot carry
	// them is no reason to refuse (their lock is a transaction's).
	store, err := repo.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer store.Close()
	applied, err := store.MigrateAnalyzed(ctx)
	if applied > 0 {
		slog.Info("applied migrations and analysed the database", "migrations", applied)
	}
	return err
}
