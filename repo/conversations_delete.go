package repo

import (
	"context"
	"time"
)

// DeleteConversation deletes a conversation locked by the caller's
// transaction (LockConversation) and everything of it: the stored files of
// its messages, the answers of Idempotency-Keys that made them, its events
// and their webhook deliveries, its request log rows; its messages and the
// rows that hang on them go with it (ON DELETE CASCADE). It leaves the
// conversation's id, deleted at a time, in deleted_conversations, for
// PurgeDeletedConversationLogs to delete the request log rows written after
// it. It returns the ids of the messages deleted.
func (q Queries) DeleteConversation(ctx context.Context, c *Conversation, at time.Time) ([]string, error) {
	var messages []string
	if err := q.selectRows(ctx, &messages, `SELECT id FROM messages WHERE conversation_id = $1`, c.ID); err != nil {
		return nil, err
	}
	ws, ids := c.WorkspaceID, array(messages)
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM files WHERE workspace_id = $1 AND message_id = ANY($2::text[])`, []any{ws, ids}},
		{`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND message_id = ANY($2::text[])`, []any{ws, ids}},
		{`DELETE FROM send_creations WHERE workspace_id = $1 AND conversation_id = $2`, []any{ws, c.ID}},
		{`DELETE FROM webhook_deliveries WHERE workspace_id = $1 AND event_id IN (
			SELECT id FROM events WHERE conversation_id = $2 AND workspace_id = $1)`, []any{ws, c.ID}},
		{deleteEvents(`workspace_id = $1 AND conversation_id = $2`), []any{ws, c.ID}},
		{`DELETE FROM api_request_logs WHERE workspace_id = $1 AND conversation_id = $2`, []any{ws, c.ID}},
		{`DELETE FROM conversations WHERE workspace_id = $1 AND id = $2`, []any{ws, c.ID}},
		{`INSERT INTO deleted_conversations (id, deleted_at) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET deleted_at = excluded.deleted_at`, []any{c.ID, at}},
	} {
		if _, err := q.exec(ctx, st.sql, st.args...); err != nil {
			return nil, err
		}
	}
	return messages, nil
}
