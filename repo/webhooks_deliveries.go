package repo

import (
	"context"
	"time"
)

// WebhookDelivery is one event on its way to one endpoint.
type WebhookDelivery struct {
	ID                 string     `db:"id"`
	WorkspaceID        string     `db:"workspace_id"`
	Livemode           bool       `db:"livemode"`
	EndpointID         string     `db:"endpoint_id"`
	EventID            string     `db:"event_id"`
	EventType          string     `db:"event_type"`
	EventSeq           int64      `db:"event_seq"`
	Channel            *string    `db:"channel"`
	WebsiteID          *string    `db:"website_id"`
	ConversationID     *string    `db:"conversation_id"`
	ReplayOf           *string    `db:"replay_of"`
	Status             string     `db:"status"`
	Attempts           int        `db:"attempts"`
	LastResponseStatus *int       `db:"last_response_status"`
	LastError          *string    `db:"last_error"`
	FirstAttemptAt     *time.Time `db:"first_attempt_at"`
	NextAttemptAt      *time.Time `db:"next_attempt_at"`
	LeaseUntil         *time.Time `db:"lease_until"`
	LeaseToken         *string    `db:"lease_token"`
	SweptAt            *time.Time `db:"swept_at"`
	CreatedAt          time.Time  `db:"created_at"`
}

const webhookDeliveryColumns = `id, workspace_id, livemode, endpoint_id, event_id, event_type,
	event_seq, channel, website_id, conversation_id, replay_of, status, attempts,
	last_response_status, last_error, first_attempt_at, next_attempt_at, lease_until, lease_token,
	swept_at, created_at`

// WebhookDeliveryFilter narrows a delivery list.
type WebhookDeliveryFilter struct {
	EndpointID *string
	Status     *string
}

// openDelivery is the status of a delivery still to be attempted.
const openDelivery = `status IN ('pending', 'retrying')`

// waitsForEarlier is true for an ordered delivery (alias d) while an earlier
// one of its endpoint and conversation is still to be attempted.
const waitsForEarlier = `d.conversation_id IS NOT NULL AND EXISTS (` + earlierOpen + `)`

// earlierOpen selects the earlier deliveries (alias p) of an ordered
// delivery's (alias d) endpoint and conversation still to be attempted.
const earlierOpen = `SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
	AND p.conversation_id = d.conversation_id AND p.event_seq < d.event_seq AND p.` + openDelivery

// InsertWebhookDelivery stores a new delivery (a replay).
func (q Queries) InsertWebhookDelivery(ctx context.Context, d *WebhookDelivery) error {
	return q.InsertWebhookDeliveries(ctx, []WebhookDelivery{*d})
}

// WebhookDelivery returns a delivery of the scope's workspace and mode,
// unless its event's channel or website is outside the scope (as
// auth.EventVisible decides: a scope limited to some websites has no
// delivery of an event of no website, contact.*).
func (q Queries) WebhookDelivery(ctx context.Context, s Scope, id string) (*WebhookDelivery, error) {
	return one[WebhookDelivery](ctx, q, `SELECT `+webhookDeliveryColumns+` FROM webhook_deliveries
		WHERE id = $1 AND workspace_id = $2 AND livemode = $3
		AND (cardinality($4::text[]) = 0 OR channel IS NULL OR channel = ANY($4))
		AND (cardinality($5::text[]) = 0 OR website_id = ANY($5))`,
		id, s.WorkspaceID, s.Livemode, array(s.Channels), array(s.WebsiteIDs))
}

// WebhookDeliveries lists deliveries newest first, up to Limit+1 rows.
func (q Queries) WebhookDeliveries(ctx context.Context, s Scope, f WebhookDeliveryFilter, p Page) ([]WebhookDelivery, error) {
	l := &list{}
	l.add(`workspace_id = ? AND livemode = ?
		AND (cardinality(?::text[]) = 0 OR channel IS NULL OR channel = ANY(?))
		AND (cardinality(?::text[]) = 0 OR website_id = ANY(?))`,
		s.WorkspaceID, s.Livemode, array(s.Channels), array(s.Channels), array(s.WebsiteIDs), array(s.WebsiteIDs))
	if f.EndpointID != nil {
		l.add("endpoint_id = ?", *f.EndpointID)
	}
	if f.Status != nil {
		l.add("status = ?", *f.Status)
	}
	var out []WebhookDelivery
	return out, l.page(ctx, q, &out, `SELECT `+webhookDeliveryColumns+` FROM webhook_deliveries`, p, "")
}

// ReleaseWebhookDelivery gives up a lease without recording an attempt (the
// worker is shutting down).
func (q Queries) ReleaseWebhookDelivery(ctx context.Context, id, token string) error {
	_, err := q.exec(ctx, `UPDATE webhook_deliveries SET lease_until = NULL, lease_token = NULL
		WHERE id = $1 AND lease_token = $2`, id, token)
	return err
}

// WebhookAttempt is the outcome of one attempt, as recorded.
type WebhookAttempt struct {
	Status         string
	ResponseStatus *int
	Error          *string
	NextAttemptAt  *time.Time
	// Attempted is false when nothing was sent (the endpoint was off); the
	// attempt is then not counted.
	Attempted bool
	// Log, when set, is the attempt's row of webhook_attempts, written by
	// the same statement.
	Log *WebhookAttemptLog
}

// RecordWebhookAttempt stores the outcome of a leased attempt and ends the
// lease. It reports false when the lease was lost (the delivery was dropped,
// switched off or taken over), in which case nothing was written.
func (q Queries) RecordWebhookAttempt(ctx context.Context, id, token string, a WebhookAttempt) (bool, error) {
	var at *time.Time
	var latency int
	var body *string
	if a.Log != nil {
		at, latency, body = &a.Log.AttemptedAt, a.Log.LatencyMS, a.Log.ResponseBody
	}
	var n int
	err := q.get(ctx, &n, `WITH recorded AS (UPDATE webhook_deliveries SET status = $3,
		attempts = attempts + CASE WHEN $7 THEN 1 ELSE 0 END,
		last_response_status = $4, last_error = $5, next_attempt_at = $6, lease_until = NULL,
		lease_token = NULL, swept_at = NULL
		WHERE id = $1 AND lease_token = $2 AND `+openDelivery+` RETURNING id),
		logged AS (INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, latency_ms,
			response_body, error) SELECT id, $8, $4, $9, $10, $5 FROM recorded WHERE $8::timestamptz IS NOT NULL)
		SELECT count(*) FROM recorded`,
		id, token, a.Status, a.ResponseStatus, a.Error, a.NextAttemptAt, a.Attempted, at, latency, body)
	return n == 1, err
}

// NextInOrder returns the earliest delivery still to be attempted of an
// endpoint and conversation, with when it is due.
func (q Queries) NextInOrder(ctx context.Context, endpointID, conversationID string) (*DueWebhookDelivery, error) {
	return one[DueWebhookDelivery](ctx, q, `SELECT `+dueWebhookDeliveryColumns+` FROM webhook_deliveries
		WHERE endpoint_id = $1 AND conversation_id = $2 AND `+openDelivery+`
		ORDER BY event_seq LIMIT 1`, endpointID, conversationID)
}

// DueWebhookDelivery is a delivery id with when it is due.
type DueWebhookDelivery struct {
	ID            string    `db:"id"`
	NextAttemptAt time.Time `db:"next_attempt_at"`
}

const dueWebhookDeliveryColumns = `id, next_attempt_at`

// SweepWebhookDeliveries returns, and marks as swept, up to limit deliveries
// whose task looks lost: due for longer than grace, not leased, not swept in
// the last grace (strictly, so with no grace a sweep does not pick up again
// what it just marked), and not waiting for an earlier delivery.
func (q Queries) SweepWebhookDeliveries(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]DueWebhookDelivery, error) {
	var out []DueWebhookDelivery
	return out, q.selectRows(ctx, &out, `UPDATE webhook_deliveries SET swept_at = $1
		WHERE id IN (SELECT d.id FROM webhook_deliveries d
			WHERE d.`+openDelivery+` AND d.next_attempt_at <= $2
			AND (d.lease_until IS NULL OR d.lease_until <= $1)
			AND (d.swept_at IS NULL OR d.swept_at < $2)
			AND NOT (`+waitsForEarlier+`)
			ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+dueWebhookDeliveryColumns, now, now.Add(-grace), limit)
}

// PurgeEvents deletes up to limit events recorded before a time, and with
// them their deliveries; it returns how many events went.
func (q Queries) PurgeEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	var n int64
	return n, q.get(ctx, &n, deleteEvents(`id IN (SELECT id FROM events WHERE created_at < $1 LIMIT $2)`), before, limit)
}

// deleteEvents is the statement that deletes the events matching where
// and answers how many went. Their deliveries go by their foreign key's
// cascade; the listing of those still waiting for the fan-out
// (events_unfanned, which has no foreign key: migration 0062) goes in the
// same statement. Every statement that deletes events is made here.
func deleteEvents(where string) string {
	return `WITH gone AS (DELETE FROM events WHERE ` + where + ` RETURNING workspace_id, seq),
	listed AS (DELETE FROM events_unfanned WHERE (part, seq) IN (SELECT fan_out_partition(workspace_id), seq FROM gone))
	SELECT count(*) FROM gone`
}
