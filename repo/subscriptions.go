package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// AccountSubscription is the outcome of subscribing an account's webhooks
// at the provider (an Instagram account's subscribed_apps).
type AccountSubscription struct {
	WorkspaceID string         `db:"workspace_id"`
	AccountID   string         `db:"account_id"`
	Status      string         `db:"status"`
	Fields      pq.StringArray `db:"fields"`
	Error       *string        `db:"error"`
	UpdatedAt   time.Time      `db:"updated_at"`
}

const accountSubscriptionColumns = `workspace_id, account_id, status, fields, error, updated_at`

// SetAccountSubscription records (or replaces) an account's subscription
// outcome.
func (q Queries) SetAccountSubscription(ctx context.Context, s *AccountSubscription) error {
	_, err := q.exec(ctx, `INSERT INTO account_subscriptions (`+accountSubscriptionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (workspace_id, account_id) DO UPDATE
		SET status = EXCLUDED.status, fields = EXCLUDED.fields, error = EXCLUDED.error, updated_at = EXCLUDED.updated_at`,
		s.WorkspaceID, s.AccountID, s.Status, s.Fields, s.Error, s.UpdatedAt)
	return err
}

// AccountSubscriptions lists the subscription outcomes of a workspace's
// accounts.
func (q Queries) AccountSubscriptions(ctx context.Context, workspaceID string) ([]AccountSubscription, error) {
	var out []AccountSubscription
	return out, q.selectRows(ctx, &out, `SELECT `+accountSubscriptionColumns+` FROM account_subscriptions
		WHERE workspace_id = $1 ORDER BY account_id`, workspaceID)
}

// ReplaceAccountProviderSealed stores re-sealed credentials only if the
// stored ones are still old (nobody connected the account meanwhile); it
// reports whether it did.
func (q Queries) ReplaceAccountProviderSealed(ctx context.Context, workspaceID, accountID, old, sealed string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE account_providers SET sealed = $4, updated_at = $5
		WHERE workspace_id = $1 AND account_id = $2 AND sealed = $3`, workspaceID, accountID, old, sealed, at)
	return n == 1, err
}
