package repo

import "context"

// CountMessage takes one message from a workspace's quota for the period,
// in the caller's transaction, and reports false when the quota is used up.
// The conditional UPDATE keeps the counter exact under concurrent sends: the
// row lock orders them and the WHERE refuses the one past the limit. Rolling
// the transaction back gives the message back.
func (q Queries) CountMessage(ctx context.Context, workspaceID string, livemode bool, period string) (bool, error) {
	if _, err := q.exec(ctx, `INSERT INTO usage_counters (workspace_id, livemode, period, used)
		VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING`, workspaceID, livemode, period); err != nil {
		return false, err
	}
	n, err := q.exec(ctx, `UPDATE usage_counters u SET used = u.used + 1 FROM workspaces w
		WHERE w.id = u.workspace_id AND u.workspace_id = $1 AND u.livemode = $2 AND u.period = $3
		  AND u.used < w.messages_limit`, workspaceID, livemode, period)
	return n == 1, err
}
