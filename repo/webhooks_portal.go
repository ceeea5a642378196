package repo

import (
	"context"
	"time"
)

// LastWebhookTest returns when the last endpoint.test event was sent to an
// endpoint (nil: never).
func (q Queries) LastWebhookTest(ctx context.Context, endpointID string) (*time.Time, error) {
	var at *time.Time
	return at, q.get(ctx, &at, `SELECT last_test_at FROM webhook_endpoints WHERE id = $1`, endpointID)
}

// SetLastWebhookTest notes that an endpoint.test event is being sent.
func (q Queries) SetLastWebhookTest(ctx context.Context, endpointID string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE webhook_endpoints SET last_test_at = $2 WHERE id = $1`, endpointID, at)
	return err
}

// InsertSentEvent records an event that was sent already to the one
// endpoint it was for (a test event): it is born fanned out, so the
// fan-out never gives it to other endpoints.
func (q Queries) InsertSentEvent(ctx context.Context, e *Event) error {
	return q.get(ctx, &e.Seq, `INSERT INTO events (id, workspace_id, livemode, type, channel,
		website_id, conversation_id, envelope, created_at, born_fanned_out)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true) RETURNING seq`,
		e.ID, e.WorkspaceID, e.Livemode, e.Type, e.Channel, e.WebsiteID, e.ConversationID, e.Envelope, e.CreatedAt)
}

// InsertFinishedWebhookDelivery stores a delivery whose one attempt was
// made already (a test event's): succeeded or failed, never due again.
func (q Queries) InsertFinishedWebhookDelivery(ctx context.Context, d *WebhookDelivery) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO webhook_deliveries (id, workspace_id, livemode,
		endpoint_id, event_id, event_type, event_seq, channel, website_id, status, attempts,
		last_response_status, last_error, first_attempt_at, created_at) VALUES (:id, :workspace_id,
		:livemode, :endpoint_id, :event_id, :event_type, :event_seq, :channel, :website_id, :status,
		:attempts, :last_response_status, :last_error, :first_attempt_at, :created_at)`, d)
	return err
}
