package repo

import (
	"context"
	"time"
)

// Event is one recorded event: the envelope webhooks carry, stored in the
// same transaction as the change it announces.
type Event struct {
	Seq            int64     `db:"seq"`
	ID             string    `db:"id"`
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	Type           string    `db:"type"`
	Channel        *string   `db:"channel"`
	WebsiteID      *string   `db:"website_id"`
	ConversationID *string   `db:"conversation_id"`
	Envelope       JSONB     `db:"envelope"`
	CreatedAt      time.Time `db:"created_at"`
}

const eventColumns = `seq, id, workspace_id, livemode, type, channel, website_id, conversation_id, envelope, created_at`

// InsertEvent records an event.
func (q Queries) InsertEvent(ctx context.Context, e *Event) error {
	return namedHeld(ctx, q, `INSERT INTO events (id, workspace_id, livemode, type, channel,
		website_id, conversation_id, envelope, created_at) VALUES (:id, :workspace_id, :livemode,
		:type, :channel, :website_id, :conversation_id, :envelope, :created_at)`, e, nil)
}

// Event returns one event of the scope's workspace and mode.
func (q Queries) Event(ctx context.Context, s Scope, id string) (*Event, error) {
	return one[Event](ctx, q, `SELECT `+eventColumns+` FROM events WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
}
