package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// WebhookAttemptLog is one attempt of a delivery as the portal shows it
// (migration 0047): never the request body, only what the endpoint
// answered.
type WebhookAttemptLog struct {
	DeliveryID     string    `db:"delivery_id"`
	AttemptedAt    time.Time `db:"attempted_at"`
	ResponseStatus *int      `db:"response_status"`
	LatencyMS      int       `db:"latency_ms"`
	ResponseBody   *string   `db:"response_body"`
	Error          *string   `db:"error"`
}

const webhookAttemptLogColumns = `a.delivery_id, a.attempted_at, a.response_status, a.latency_ms,
	a.response_body, a.error`

// WebhookAttemptLogs lists the attempts of some deliveries of the scope's
// workspace and mode, each delivery's oldest first.
func (q Queries) WebhookAttemptLogs(ctx context.Context, s Scope, deliveryIDs []string) ([]WebhookAttemptLog, error) {
	var out []WebhookAttemptLog
	return out, q.selectRows(ctx, &out, `SELECT `+webhookAttemptLogColumns+` FROM webhook_attempts a
		JOIN webhook_deliveries d ON d.id = a.delivery_id
		WHERE a.delivery_id = ANY($1) AND d.workspace_id = $2 AND d.livemode = $3
		ORDER BY a.delivery_id, a.id`, pq.StringArray(deliveryIDs), s.WorkspaceID, s.Livemode)
}

// InsertWebhookAttemptLog records an attempt made outside the lease of a
// delivery (a test event's, sent at once).
func (q Queries) InsertWebhookAttemptLog(ctx context.Context, l *WebhookAttemptLog) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO webhook_attempts (delivery_id, attempted_at,
		response_status, latency_ms, response_body, error) VALUES (:delivery_id, :attempted_at,
		:response_status, :latency_ms, :response_body, :error)`, l)
	return err
}

// attemptLogValues are the log columns of a batch of success records, as
// arrays (NULL where a record has no log).
type attemptLogValues struct {
	at        []*string
	latencies pq.Int64Array
	bodies    []*string
}

func newAttemptLogValues(n int) attemptLogValues {
	return attemptLogValues{at: make([]*string, n), latencies: make(pq.Int64Array, n), bodies: make([]*string, n)}
}

func (v attemptLogValues) set(i int, l *WebhookAttemptLog) {
	if l == nil {
		return
	}
	at := timeText(l.AttemptedAt)
	v.at[i], v.latencies[i], v.bodies[i] = &at, int64(l.LatencyMS), l.ResponseBody
}
