package repo

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// LockMessage returns a message of a workspace and mode, locked for update
// until the transaction ends.
func (q Queries) LockMessage(ctx context.Context, workspaceID string, livemode bool, id string) (*Message, error) {
	return one[Message](ctx, q, `SELECT `+messageColumns+` FROM messages WHERE workspace_id = $1 AND livemode = $2 AND id = $3 FOR UPDATE`,
		workspaceID, livemode, id)
}

// UpdateMessageDelivery writes a message's status and delivery.
func (q Queries) UpdateMessageDelivery(ctx context.Context, m *Message) error {
	n, err := q.exec(ctx, `UPDATE messages SET status = $4, delivery = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, m.WorkspaceID, m.Livemode, m.ID, m.Status, m.Delivery)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// UpdateMessageDeliveries writes the status and delivery of many messages in
// one statement; each must exist (the caller holds them locked).
func (q Queries) UpdateMessageDeliveries(ctx context.Context, ms []*Message) error {
	if len(ms) == 0 {
		return nil
	}
	ws, ids, statuses := make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
	live, deliveries := make([]bool, len(ms)), make([]*string, len(ms))
	for i, m := range ms {
		ws[i], live[i], ids[i], statuses[i] = m.WorkspaceID, m.Livemode, m.ID, m.Status
		if m.Delivery != nil {
			d := string(m.Delivery)
			deliveries[i] = &d
		}
	}
	n, err := q.exec(ctx, `UPDATE messages m SET status = u.status, delivery = u.delivery::jsonb
		FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::text[]) AS u(workspace_id, livemode, id, status, delivery)
		WHERE m.workspace_id = u.workspace_id AND m.livemode = u.livemode AND m.id = u.id`,
		array(ws), pq.BoolArray(live), array(ids), array(statuses), nullableArray(deliveries))
	if err == nil && n != int64(len(ms)) {
		return fmt.Errorf("update message deliveries: %d of %d messages: %w", n, len(ms), ErrNotFound)
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
