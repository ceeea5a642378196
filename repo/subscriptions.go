package repo

import (
	"context"
	"time"
)

// ReplaceAccountProviderSealed stores re-sealed credentials only if the
// stored ones are still old (nobody connected the account meanwhile); it
// reports whether it did.
func (q Queries) ReplaceAccountProviderSealed(ctx context.Context, workspaceID, accountID, old, sealed string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE account_providers SET sealed = $4, updated_at = $5
		WHERE workspace_id = $1 AND account_id = $2 AND sealed = $3`, workspaceID, accountID, old, sealed, at)
	return n == 1, err
}
