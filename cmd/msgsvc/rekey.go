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
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/graph/webhook"
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
		changed, skipped, err := reseal(ctx, s, cfg.Seal, webhooksOf(s, cfg))
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

// webhooksOf is the webhook service with the secrets of cfg.
func webhooksOf(store *repo.Store, cfg *Config) *webhook.Service {
	return graph.NewServices(graph.Config{Store: store, Secret: cfg.Secret, PreviousSecrets: cfg.PreviousSecrets,
		Seal: cfg.Seal, Clock: time.Now}).Webhooks
}

// reseal re-seals every value sealed at rest under the first key:
// provider credentials, DKIM keys and widget identity secrets under key's
// first, webhook signing secrets under the signing service secret. It
// returns how many values changed per column; skipped names the values no
// key opens, left as they are.
func reseal(ctx context.Context, store *repo.Store, key seal.Key, webhooks *webhook.Service) (changed map[string]int, skipped []error, err error) {
	return store.Reseal(ctx, func(v repo.SealedValue) ([]byte, bool, error) {
		var aad string
		switch v.Column {
		case "account_providers.sealed":
			aad = credentials.SealAAD(v.Row[0], v.Row[1])
		case "email_domains.dkim_key_sealed":
			aad = mail.KeyAAD(v.Row[0], v.Row[1])
		case "website_widgets.identity_secret_sealed":
			aad = visitor.SealAAD(v.Row[0])
		case "webhook_endpoints.secret", "webhook_endpoints.previous_secret":
			return webhooks.ResealSecret(v.Row[0], v.Value)
		default:
			return nil, false, fmt.Errorf("rekey: no key for %s", v.Column)
		}
		out, changed, err := key.Reseal(string(v.Value), aad)
		return []byte(out), changed, err
	})
}
