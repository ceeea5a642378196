package graph

import (
	"context"
	"fmt"

	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
)

// Rekey re-seals every value sealed at rest under the first key
// (msgsvc rekey): provider credentials, DKIM keys and widget identity
// secrets under Seal's first key, webhook signing secrets under the
// signing service secret. It returns how many values changed per column;
// skipped names the values no key opens, left as they are.
func (r *Resolver) Rekey(ctx context.Context) (changed map[string]int, skipped []error, err error) {
	webhooks := r.WebhookService()
	return r.Store.Reseal(ctx, func(v repo.SealedValue) ([]byte, bool, error) {
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
		out, changed, err := r.Seal.Reseal(string(v.Value), aad)
		return []byte(out), changed, err
	})
}
