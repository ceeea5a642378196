package repo

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
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

// An event is born fanned out (born_fanned_out true) when no endpoint of
// its workspace could take it: none enabled, verified and not deleted that
// takes its mode (live, or test events) and its type. Any other event
// enters events_unfanned (a trigger of migration 0057, in the statement
// that inserts it) and waits there for the fan-out, which decides with
// every rule (webhook.Matches). An endpoint verified while the statement
// runs is not seen by it, as if verified just after the event.
const bornFannedOut = `NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = %[1]s
	AND w.deleted_at IS NULL AND w.enabled AND w.verified_at IS NOT NULL AND (%[2]s OR w.test_events)
	AND ('*' = ANY (w.events) OR %[3]s = ANY (w.events)))`

// insertEvent is InsertEvent's statement, its parameters positional so that
// nothing is bound by reflection on a send's path.
var insertEvent = `INSERT INTO events (id, workspace_id, livemode, type, channel, website_id,
	conversation_id, envelope, created_at, born_fanned_out) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, ` +
	fmt.Sprintf(bornFannedOut, "$2", "$3::boolean", "$4::text") + `)`

// InsertEvent records an event.
func (q Queries) InsertEvent(ctx context.Context, e *Event) error {
	return q.execHeld(ctx, insertEvent, nil, e.ID, e.WorkspaceID, e.Livemode, e.Type, e.Channel,
		e.WebsiteID, e.ConversationID, e.Envelope, e.CreatedAt)
}

var insertEvents = `INSERT INTO events (id, workspace_id, livemode, type, channel, website_id,
		conversation_id, envelope, created_at, born_fanned_out)
		SELECT id, workspace_id, livemode, type, channel, website_id, conversation_id, envelope::jsonb, created_at,
			` + fmt.Sprintf(bornFannedOut, "e.workspace_id", "e.livemode", "e.type") + `
		FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::timestamptz[]) WITH ORDINALITY
			AS e(id, workspace_id, livemode, type, channel, website_id, conversation_id, envelope, created_at, n)
		ORDER BY n`

// InsertEvents records many events in one statement, in the order given:
// their seqs follow it, so a batch keeps each conversation's events in
// order as much as one InsertEvent after another does.
func (q Queries) InsertEvents(ctx context.Context, es []*Event) error {
	if len(es) == 0 {
		return nil
	}
	n := len(es)
	ids, ws, types, envelopes, at := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	live := make([]bool, n)
	channels, websites, convs := make([]*string, n), make([]*string, n), make([]*string, n)
	for i, e := range es {
		ids[i], ws[i], live[i], types[i] = e.ID, e.WorkspaceID, e.Livemode, e.Type
		channels[i], websites[i], convs[i] = e.Channel, e.WebsiteID, e.ConversationID
		envelopes[i], at[i] = string(e.Envelope), timeText(e.CreatedAt)
	}
	_, err := q.exec(ctx, insertEvents,
		array(ids), array(ws), pq.BoolArray(live), array(types), nullableArray(channels), nullableArray(websites),
		nullableArray(convs), array(envelopes), array(at))
	return err
}

// Event returns one event of the scope's workspace and mode.
func (q Queries) Event(ctx context.Context, s Scope, id string) (*Event, error) {
	return one[Event](ctx, q, `SELECT `+eventColumns+` FROM events WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
}
