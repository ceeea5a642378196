package repo

import "context"

// LockConversationThenMessage locks a message's conversation and then the
// message, each until the transaction ends: the order in which every writer
// of a conversation's events takes the two rows (graph/metahook/callback.go
// lists them), so its events are recorded in order and no two writers
// deadlock, one holding the message and waiting for the conversation, the
// other the reverse.
//
// The first statement reads the message's conversation id without a lock
// and locks that conversation (visible to the scope); the second locks the
// message, of the scope's workspace and mode, if it is still in that
// conversation. Two statements, so the order is the one written here, not
// whichever a join's plan returns rows in. It is ErrNotFound when the
// message is missing, or its conversation outside the scope.
func (q Queries) LockConversationThenMessage(ctx context.Context, s Scope, id string) (*Conversation, *Message, error) {
	args := []any{id, s.WorkspaceID, s.Livemode}
	conv, err := one[Conversation](ctx, q, conversationSelect+` WHERE c.id = (SELECT conversation_id FROM messages
		WHERE id = $1 AND workspace_id = $2 AND livemode = $3) AND `+scopeWhere(s, &args)+` FOR UPDATE OF c`, args...)
	if err != nil {
		return nil, nil, err
	}
	m, err := one[Message](ctx, q, `SELECT `+messageColumns+` FROM messages WHERE workspace_id = $1 AND livemode = $2
		AND id = $3 AND conversation_id = $4 FOR UPDATE`, s.WorkspaceID, s.Livemode, id, conv.ID)
	if err != nil {
		return nil, nil, err
	}
	return conv, m, nil
}
