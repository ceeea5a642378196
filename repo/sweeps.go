package repo

import (
	"context"
	"time"
)

// IdempotencyTTL is how long an Idempotency-Key is remembered (spec Limits).
const IdempotencyTTL = 24 * time.Hour

// MessageRef names a message of a workspace.
type MessageRef struct {
	WorkspaceID string `db:"workspace_id"`
	ID          string `db:"id"`
}

const messageRefColumns = `workspace_id, id`

// PurgeIdempotencyKeys deletes Idempotency-Key records made before a time.
func (q Queries) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	return q.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, before)
}
