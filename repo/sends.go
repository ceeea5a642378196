package repo

import (
	"context"
	"errors"
)

// SendCreations is what a live send's reserve created, kept until its
// message is settled (migration 0020).
type SendCreations struct {
	MessageID      string  `db:"message_id"`
	WorkspaceID    string  `db:"workspace_id"`
	Livemode       bool    `db:"livemode"`
	ContactID      *string `db:"contact_id"`
	ConversationID *string `db:"conversation_id"`
}

const sendCreationsColumns = `message_id, workspace_id, livemode, contact_id, conversation_id`

// InsertSendCreations records what a reserve created.
func (q Queries) InsertSendCreations(ctx context.Context, c *SendCreations) error {
	_, err := q.exec(ctx, `INSERT INTO send_creations (`+sendCreationsColumns+`)
		VALUES ($1, $2, $3, $4, $5)`, c.MessageID, c.WorkspaceID, c.Livemode, c.ContactID, c.ConversationID)
	return err
}

// TakeSendCreations removes and returns what a message's reserve created;
// nil when it created nothing or another settle took it first.
func (q Queries) TakeSendCreations(ctx context.Context, messageID string) (*SendCreations, error) {
	c, err := one[SendCreations](ctx, q, `DELETE FROM send_creations WHERE message_id = $1
		RETURNING `+sendCreationsColumns, messageID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return c, err
}

// RemoveCreations deletes what a refused send created: its conversation
// unless another message has come into it meanwhile, then its contact
// unless another conversation has it.
func (q Queries) RemoveCreations(ctx context.Context, c *SendCreations) error {
	if c.ConversationID != nil {
		if _, err := q.exec(ctx, `DELETE FROM conversations WHERE workspace_id = $1 AND livemode = $2 AND id = $3
			AND NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = $3)`,
			c.WorkspaceID, c.Livemode, *c.ConversationID); err != nil {
			return err
		}
	}
	if c.ContactID != nil {
		if _, err := q.exec(ctx, `DELETE FROM contacts WHERE workspace_id = $1 AND livemode = $2 AND id = $3
			AND NOT EXISTS (SELECT 1 FROM conversations WHERE contact_id = $3)`,
			c.WorkspaceID, c.Livemode, *c.ContactID); err != nil {
			return err
		}
	}
	return nil
}
