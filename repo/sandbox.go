package repo

import (
	"context"
	"time"
)

// MessageInConversation is a message read with its conversation.
type MessageInConversation struct {
	Message
	Conversation Conversation `db:"conversation"`
}

var (
	messageInConversationColumns = qualified("m", messageColumns) + `,
	` + nested("conversation", conversationColumns)
	messageInConversationFrom = conversationFrom + ` JOIN messages m ON m.conversation_id = c.id`
)

// dueSandboxMessages selects and locks the sandbox messages waiting for
// their delivered/failed step that were sent at or before $1,
// oldest first, at most $2, with their conversations. The partial index
// messages_sandbox_due (migration 0018) holds exactly the messages waiting,
// in this order, so a pass reads only what it takes at any table size
// (TestDueSandboxMessagesUseTheIndex). It reads every workspace's sandbox,
// as a pass must, and joins each message to its own conversation by key
// only: a message is always in its conversation's workspace and mode, and
// saying so again (c.workspace_id = m.workspace_id AND ...) made the planner
// guess the join a hundred times too small and sort every due message
// rather than read the index in order and stop at the batch.
//
// SKIP LOCKED: the statement never waits for a lock, so passes in several
// workers never wait on each other and a pass is never part of a deadlock
// (each side of one waits); a send or another writer that wants a row a
// pass holds waits at most for that batch's commit. A row it skips is taken
// by the next pass.
// It locks the conversation before the message (OF c, m: Postgres locks a
// row's tables in the order OF names them), so a message whose conversation
// a send holds is skipped without being locked. Like every writer of a
// conversation's events, the pass holds the conversation until it commits,
// so within a conversation the order of seqs stays the order of commits;
// and a message is seen sent only once its message.sent has committed, so
// its message.status comes after it.
var dueSandboxMessages = `SELECT ` + messageInConversationColumns + ` FROM ` + messageInConversationFrom + `
	WHERE m.livemode = false AND m.status = 'sent' AND m.direction = 'outbound' AND m.created_at <= $1
	ORDER BY m.created_at, m.id LIMIT $2
	FOR UPDATE OF c, m SKIP LOCKED`

// LockDueSandboxMessages returns, locked until the transaction ends, up to
// limit sandbox messages still sent that were sent at or before a time, with
// their conversations, oldest first; rows another transaction holds are
// skipped, not waited for.
func (q Queries) LockDueSandboxMessages(ctx context.Context, sentBy time.Time, limit int) ([]MessageInConversation, error) {
	var out []MessageInConversation
	return out, q.selectRows(ctx, &out, dueSandboxMessages, sentBy, limit)
}
