package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/repo"
)

// rekey re-seals every value sealed at rest with the first key of
// MSGSVC_ENCRYPTION_KEY and the first secret of MSGSVC_SECRET, so the
// others can be dropped from the lists; out gets what changed.
func rekey(ctx context.Context, cfg *Config, out io.Writer) error {
	if cfg.SecretGenerated {
		return errors.New("rekey needs MSGSVC_SECRET: with none, webhook signing secrets would be sealed under a random secret that dies with this command")
	}
	return withStore(ctx, cfg, func(s *repo.Store) error {
		r := &graph.Resolver{Store: s, Secret: cfg.Secret, PreviousSecrets: cfg.PreviousSecrets, Seal: cfg.Seal, Clock: time.Now}
		changed, skipped, err := r.Rekey(ctx)
		if err != nil {
			return fmt.Errorf("rekey: %w (nothing was changed)", err)
		}
		columns := make([]string, 0, len(changed))
		total := 0
		for c, n := range changed {
			columns = append(columns, fmt.Sprintf("%s: %d", c, n))
			total += n
		}
		slices.Sort(columns)
		fmt.Fprintf(out, "re-sealed %d values with the first key", total)
		if total > 0 {
			fmt.Fprintf(out, " (%s)", strings.Join(columns, ", "))
		}
		fmt.Fprintln(out)
		if len(skipped) > 0 {
			return fmt.Errorf("rekey: %d values open with none of the keys and were left as they are (add the key or secret that sealed them to the list and run rekey again): %w",
				len(skipped), errors.Join(skipped...))
		}
		return nil
	})
}
