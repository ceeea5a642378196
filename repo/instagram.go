package repo

import (
	"context"
	"time"
)

// InstagramComment is the provider's comment behind an inbound comment
// message.
type InstagramComment struct {
	MessageID      string    `db:"message_id"`
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	AccountID      string    `db:"account_id"`
	ConversationID string    `db:"conversation_id"`
	CommentID      string    `db:"comment_id"`
	ParentID       *string   `db:"parent_id"`
	MediaID        string    `db:"media_id"`
	FromID         string    `db:"from_id"`
	Field          string    `db:"field"`
	CreatedAt      time.Time `db:"created_at"`
}

const instagramCommentColumns = `message_id, workspace_id, livemode, account_id, conversation_id, comment_id,
	parent_id, media_id, from_id, field, created_at`

// InsertInstagramComment records a comment; a comment already recorded (a
// retried webhook) is a ConflictError.
func (q Queries) InsertInstagramComment(ctx context.Context, c *InstagramComment) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO instagram_comments (`+instagramCommentColumns+`)
		VALUES (:message_id, :workspace_id, :livemode, :account_id, :conversation_id, :comment_id,
		:parent_id, :media_id, :from_id, :field, :created_at)`, c)
	return err
}

// InstagramCommentKnown says whether an account already has a comment.
func (q Queries) InstagramCommentKnown(ctx context.Context, s Scope, accountID, commentID string) (bool, error) {
	var known bool
	err := q.get(ctx, &known, `SELECT EXISTS (SELECT 1 FROM instagram_comments WHERE workspace_id = $1
		AND livemode = $2 AND account_id = $3 AND comment_id = $4)`, s.WorkspaceID, s.Livemode, accountID, commentID)
	return known, err
}

// CommentThread returns the conversation of a commenter's comments on one
// media (the newest, should there be several), ErrNotFound before the first.
func (q Queries) CommentThread(ctx context.Context, s Scope, accountID, fromID, mediaID string) (string, error) {
	var id string
	err := q.get(ctx, &id, `SELECT conversation_id FROM instagram_comments WHERE workspace_id = $1
		AND livemode = $2 AND account_id = $3 AND from_id = $4 AND media_id = $5
		ORDER BY created_at DESC, message_id DESC LIMIT 1`, s.WorkspaceID, s.Livemode, accountID, fromID, mediaID)
	return id, err
}

// InstagramCommentOf returns the provider's comment behind a message.
func (q Queries) InstagramCommentOf(ctx context.Context, messageID string) (*InstagramComment, error) {
	return one[InstagramComment](ctx, q, `SELECT `+instagramCommentColumns+` FROM instagram_comments
		WHERE message_id = $1`, messageID)
}

// SetMessageDeleted marks a message the customer unsent; it reports false
// when it already was.
func (q Queries) SetMessageDeleted(ctx context.Context, workspaceID, id string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE messages SET deleted = true WHERE workspace_id = $1 AND id = $2 AND NOT deleted`,
		workspaceID, id)
	return n == 1, err
}

// InstagramSending says whether a send of ours to an Instagram customer
// (by Instagram-scoped id) on an account is between reserve and confirm:
// an echo Meta sends of it may arrive before its ids are stored.
func (q Queries) InstagramSending(ctx context.Context, s Scope, accountID, customerID string) (bool, error) {
	var sending bool
	err := q.get(ctx, &sending, `SELECT EXISTS (SELECT 1 FROM messages m
		JOIN conversations c ON c.id = m.conversation_id
		JOIN contacts ct ON ct.id = c.contact_id
		WHERE m.workspace_id = $1 AND m.livemode = $2 AND m.status = 'sending' AND m.channel = 'instagram'
		AND c.account_id = $3 AND ct.instagram_user_id = $4)`, s.WorkspaceID, s.Livemode, accountID, customerID)
	return sending, err
}
