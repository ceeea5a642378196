package repo

import (
	"context"
	"time"
)

// LockMessage returns a message of a workspace and mode, locked for update
// until the transaction ends.
func (q Queries) LockMessage(ctx context.Context, workspaceID string, livemode bool, id string) (*Message, error) {
	return one[Message](ctx, q, `SELECT `+messageColumns+` FROM messages WHERE workspace_id = $1 AND livemode = $2 AND id = $3 FOR UPDATE`,
		workspaceID, livemode, id)
}

// LockMessageInConversation is LockMessage and then LockConversation of the
// message's conversation in one statement: the message of the scope's
// workspace and mode, and its conversation, visible to the scope, both
// locked for update, the message first, as the two statements took them
// (Postgres locks a row's tables in the order OF names them;
// TestLockMessageInConversationLockOrder checks it). It is ErrNotFound when
// the message is missing, and when its conversation is outside the scope,
// which a message written in its conversation's workspace and mode never is.
func (q Queries) LockMessageInConversation(ctx context.Context, s Scope, id string) (*Message, *Conversation, error) {
	args := []any{id}
	row, err := one[messageInConversation](ctx, q, `SELECT `+messageInConversationColumns+` FROM `+messageInConversationFrom+`
		WHERE m.id = $1 AND m.workspace_id = c.workspace_id AND m.livemode = c.livemode
		AND `+scopeWhere(s, &args)+` FOR UPDATE OF m, c`, args...)
	if err != nil {
		return nil, nil, err
	}
	return &row.Message, &row.Conversation, nil
}

// messageInConversation is the row LockMessageInConversation reads.
type messageInConversation struct {
	Message
	Conversation Conversation `db:"conversation"`
}

var (
	messageInConversationColumns = qualified("m", messageColumns) + `,
	` + nested("conversation", conversationColumns)
	messageInConversationFrom = conversationFrom + ` JOIN messages m ON m.conversation_id = c.id`
)

// UpdateMessageDelivery writes a message's status and delivery.
func (q Queries) UpdateMessageDelivery(ctx context.Context, m *Message) error {
	n, err := q.exec(ctx, `UPDATE messages SET status = $4, delivery = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, m.WorkspaceID, m.Livemode, m.ID, m.Status, m.Delivery)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// LastInbound returns when a contact last wrote to one channel account in
// direct (non-comment) conversations, or nil if never.
func (q Queries) LastInbound(ctx context.Context, s Scope, contactID, channel, accountID string) (*time.Time, error) {
	var at *time.Time
	err := q.get(ctx, &at, `SELECT max(last_inbound_at) FROM conversations WHERE workspace_id = $1
		AND livemode = $2 AND contact_id = $3 AND channel = $4 AND account_id = $5 AND NOT is_comment`,
		s.WorkspaceID, s.Livemode, contactID, channel, accountID)
	return at, err
}

// LatestInboundMessage returns a conversation's newest inbound message.
func (q Queries) LatestInboundMessage(ctx context.Context, s Scope, conversationID string) (*Message, error) {
	return one[Message](ctx, q, `SELECT `+messageColumns+` FROM messages WHERE workspace_id = $1 AND livemode = $2
		AND conversation_id = $3 AND direction = 'inbound' ORDER BY created_at DESC, id DESC LIMIT 1`,
		s.WorkspaceID, s.Livemode, conversationID)
}

// HasPrivateReply says whether a comment already has its private reply.
func (q Queries) HasPrivateReply(ctx context.Context, commentMessageID string) (bool, error) {
	var exists bool
	err := q.get(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM private_replies WHERE comment_message_id = $1)`, commentMessageID)
	return exists, err
}

// InsertPrivateReply records a comment's private reply; a second one is a
// ConflictError.
func (q Queries) InsertPrivateReply(ctx context.Context, commentMessageID, messageID string, at time.Time) error {
	_, err := q.exec(ctx, `INSERT INTO private_replies (comment_message_id, message_id, created_at) VALUES ($1, $2, $3)`,
		commentMessageID, messageID, at)
	return err
}

// Template returns one template of a WhatsApp number by name and language,
// in one mode.
func (q Queries) Template(ctx context.Context, s Scope, accountID, name, language string) (*Template, error) {
	return one[Template](ctx, q, `SELECT `+templateColumns+` FROM templates WHERE workspace_id = $1
		AND livemode = $2 AND whatsapp_account_id = $3 AND name = $4 AND language = $5`,
		s.WorkspaceID, s.Livemode, accountID, name, language)
}

// EmailDomains lists a workspace's email domains.
func (q Queries) EmailDomains(ctx context.Context, workspaceID string) ([]EmailDomain, error) {
	var out []EmailDomain
	return out, q.selectRows(ctx, &out, `SELECT `+emailDomainColumns+` FROM email_domains WHERE workspace_id = $1 ORDER BY domain`, workspaceID)
}

// InsertContactIfAbsent stores a new contact unless one with the same
// identity exists; it reports whether it inserted. A concurrent insert of the
// same identity waits for the other transaction, so the caller can then read
// the winner instead of failing on the unique index.
func (q Queries) InsertContactIfAbsent(ctx context.Context, c *Contact) (bool, error) {
	n, err := sqlxNamedExec(ctx, q, insertContact+` ON CONFLICT DO NOTHING`, c)
	return n == 1, err
}
