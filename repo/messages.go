package repo

import (
	"context"
	"fmt"
	"time"
)

// Message is one message of a conversation.
type Message struct {
	ID             string    `db:"id"`
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	ConversationID string    `db:"conversation_id"`
	Channel        string    `db:"channel"`
	Direction      string    `db:"direction"`
	SenderType     string    `db:"sender_type"`
	SenderName     *string   `db:"sender_name"`
	Type           string    `db:"type"`
	Text           *string   `db:"text"`
	HTML           *string   `db:"html"`
	HTMLRaw        *string   `db:"html_raw"`
	Email          JSONB     `db:"email"`
	Attachments    JSONB     `db:"attachments"`
	Status         string    `db:"status"`
	Delivery       JSONB     `db:"delivery"`
	CreatedAt      time.Time `db:"created_at"`
	// Deleted: the customer unsent the message (Instagram's is_deleted).
	Deleted bool `db:"deleted"`
	// Content is the message's rich content (graph/model.Rich), NULL when
	// it has none.
	Content JSONB `db:"content"`
}

const messageColumns = `id, workspace_id, livemode, conversation_id, channel, direction,
	sender_type, sender_name, type, text, html, html_raw, email, attachments, status, delivery, created_at, deleted, content`

// Messages lists a conversation's messages oldest first (newest first with
// newestFirst, After then being the older side), up to Limit+1 rows, keyset
// on (created_at, id). The conversation must already have been found in the scope.
func (q Queries) Messages(ctx context.Context, s Scope, conversationID string, p Page, newestFirst bool) ([]Message, error) {
	args := []any{s.WorkspaceID, s.Livemode, conversationID}
	cmp, order := ">", "created_at, id"
	if newestFirst {
		cmp, order = "<", "created_at DESC, id DESC"
	}
	cond := ""
	if p.After != nil {
		args = append(args, p.After.At, p.After.ID)
		cond = " AND (created_at, id) " + cmp + " ($4, $5)"
	}
	args = append(args, p.Limit+1)
	var out []Message
	return out, q.selectRows(ctx, &out, fmt.Sprintf(`SELECT `+messageColumns+` FROM messages
		WHERE workspace_id = $1 AND livemode = $2 AND conversation_id = $3%s
		ORDER BY %s LIMIT $%d`, cond, order, len(args)), args...)
}

// Message returns one message visible to the scope (its conversation must be).
func (q Queries) Message(ctx context.Context, s Scope, id string) (*Message, error) {
	args := []any{id}
	return one[Message](ctx, q, `SELECT `+qualified("m", messageColumns)+` FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.id = $1 AND `+scopeWhere(s, &args), args...)
}

// InsertMessage stores a new message.
func (q Queries) InsertMessage(ctx context.Context, m *Message) error {
	if m.Attachments == nil {
		m.Attachments = JSONB(`[]`)
	}
	// Positional, in messageColumns' order: nothing bound by reflection on
	// a send's path.
	return q.execHeld(ctx, insertMessage, nil, m.ID, m.WorkspaceID, m.Livemode, m.ConversationID, m.Channel,
		m.Direction, m.SenderType, m.SenderName, m.Type, m.Text, m.HTML, m.HTMLRaw, m.Email, m.Attachments,
		m.Status, m.Delivery, m.CreatedAt, m.Deleted, m.Content)
}

const insertMessage = `INSERT INTO messages (` + messageColumns + `) VALUES ($1, $2, $3, $4, $5,
	$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`
