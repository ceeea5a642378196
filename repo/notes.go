package repo

import (
	"context"
	"time"
)

// Note is a member's private note on a conversation (app.md 2): seen by
// the workspace's members only, never a message.
type Note struct {
	ID             string    `db:"id"`
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	ConversationID string    `db:"conversation_id"`
	AuthorMemberID string    `db:"author_member_id"`
	AuthorName     string    `db:"author_name"`
	Text           string    `db:"text"`
	CreatedAt      time.Time `db:"created_at"`
}

const noteColumns = `id, workspace_id, livemode, conversation_id, author_member_id, author_name, text, created_at`

// InsertNote stores a note on a conversation visible to the scope; it
// returns ErrNotFound for one outside it.
func (q Queries) InsertNote(ctx context.Context, s Scope, n *Note) error {
	args := []any{n.ID, n.ConversationID, n.AuthorMemberID, n.AuthorName, n.Text, n.CreatedAt}
	rows, err := q.exec(ctx, `INSERT INTO conversation_notes (`+noteColumns+`)
		SELECT $1, c.workspace_id, c.livemode, c.id, $3, $4, $5, $6 FROM conversations c
		WHERE c.id = $2 AND `+scopeWhere(s, &args), args...)
	if err == nil && rows == 0 {
		return ErrNotFound
	}
	n.WorkspaceID, n.Livemode = s.WorkspaceID, s.Livemode
	return err
}

// Notes lists a conversation's notes oldest first, after a position, up to
// Limit+1 rows; the caller checked the conversation is in its scope.
func (q Queries) Notes(ctx context.Context, s Scope, conversationID string, p Page) ([]Note, error) {
	args := []any{conversationID, s.WorkspaceID, s.Livemode, p.Limit + 1}
	after := ""
	if p.After != nil {
		args = append(args, p.After.At, p.After.ID)
		after = ` AND (created_at, id) > ($5, $6)`
	}
	var out []Note
	return out, q.selectRows(ctx, &out, `SELECT `+noteColumns+` FROM conversation_notes
		WHERE conversation_id = $1 AND workspace_id = $2 AND livemode = $3`+after+`
		ORDER BY created_at, id LIMIT $4`, args...)
}
