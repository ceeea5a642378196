package repo

import (
	"context"
	"time"
)

// WebhookRecovery is a background replay of an endpoint's failed
// deliveries (migration 0048).
type WebhookRecovery struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	Livemode       bool       `db:"livemode"`
	EndpointID     string     `db:"endpoint_id"`
	Since          time.Time  `db:"since"`
	Until          time.Time  `db:"until"`
	State          string     `db:"state"`
	Total          int        `db:"total"`
	Done           int        `db:"done"`
	AfterCreatedAt *time.Time `db:"after_created_at"`
	AfterID        *string    `db:"after_id"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	FinishedAt     *time.Time `db:"finished_at"`
}

const webhookRecoveryColumns = `id, workspace_id, livemode, endpoint_id, since, until, state, total,
	done, after_created_at, after_id, created_at, updated_at, finished_at`

// InsertWebhookRecovery stores a new recovery.
func (q Queries) InsertWebhookRecovery(ctx context.Context, r *WebhookRecovery) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO webhook_recoveries (`+webhookRecoveryColumns+`)
		VALUES (:id, :workspace_id, :livemode, :endpoint_id, :since, :until, :state, :total, :done,
		:after_created_at, :after_id, :created_at, :updated_at, :finished_at)`, r)
	return err
}

// WebhookRecovery returns a recovery of the scope's workspace and mode.
func (q Queries) WebhookRecovery(ctx context.Context, s Scope, id string) (*WebhookRecovery, error) {
	return one[WebhookRecovery](ctx, q, `SELECT `+webhookRecoveryColumns+` FROM webhook_recoveries
		WHERE id = $1 AND workspace_id = $2 AND livemode = $3`, id, s.WorkspaceID, s.Livemode)
}

// LockWebhookRecovery returns a recovery by id, locked until the
// transaction ends, for the worker that runs it.
func (q Queries) LockWebhookRecovery(ctx context.Context, id string) (*WebhookRecovery, error) {
	return one[WebhookRecovery](ctx, q, `SELECT `+webhookRecoveryColumns+` FROM webhook_recoveries
		WHERE id = $1 FOR UPDATE`, id)
}

// UpdateWebhookRecovery writes a recovery's progress.
func (q Queries) UpdateWebhookRecovery(ctx context.Context, r *WebhookRecovery) error {
	_, err := sqlxNamedExec(ctx, q, `UPDATE webhook_recoveries SET state = :state, total = :total,
		done = :done, after_created_at = :after_created_at, after_id = :after_id,
		updated_at = :updated_at, finished_at = :finished_at WHERE id = :id`, r)
	return err
}

// StaleWebhookRecoveries lists recoveries still running that no worker
// moved on since before: their task was lost.
func (q Queries) StaleWebhookRecoveries(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `SELECT id FROM webhook_recoveries WHERE state = 'running'
		AND updated_at < $1 ORDER BY updated_at LIMIT $2`, before, limit)
}

// recoverable selects (alias d) the failed deliveries a recovery ($1
// endpoint, $2 workspace, $3 mode, $4 since, $5 until) replays: the latest
// failed one of each event in the window, except test events, whose event
// is newer than $6 (within retention).
const recoverable = `d.endpoint_id = $1 AND d.workspace_id = $2 AND d.livemode = $3
	AND d.status = 'failed' AND d.created_at >= $4 AND d.created_at <= $5 AND d.event_type <> 'endpoint.test'
	AND NOT EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.event_id = d.event_id
		AND x.endpoint_id = d.endpoint_id AND x.status = 'failed' AND x.created_at >= $4
		AND x.created_at <= $5 AND (x.created_at, x.id) > (d.created_at, d.id))
	AND EXISTS (SELECT 1 FROM events ev WHERE ev.id = d.event_id AND ev.created_at >= $6)`

// CountRecoverableDeliveries counts what a recovery replays, for events
// recorded after expiredBefore.
func (q Queries) CountRecoverableDeliveries(ctx context.Context, r *WebhookRecovery, expiredBefore time.Time) (int, error) {
	var n int
	return n, q.get(ctx, &n, `SELECT count(*) FROM webhook_deliveries d WHERE `+recoverable,
		r.EndpointID, r.WorkspaceID, r.Livemode, r.Since, r.Until, expiredBefore)
}

// RecoverableDeliveries returns up to limit of the deliveries a recovery
// replays after its last one, in (created_at, id) order.
func (q Queries) RecoverableDeliveries(ctx context.Context, r *WebhookRecovery, expiredBefore time.Time, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	return out, q.selectRows(ctx, &out, `SELECT `+qualified("d", webhookDeliveryColumns)+`
		FROM webhook_deliveries d WHERE `+recoverable+`
		AND ($7::timestamptz IS NULL OR (d.created_at, d.id) > ($7, $8::text))
		ORDER BY d.created_at, d.id LIMIT $9`,
		r.EndpointID, r.WorkspaceID, r.Livemode, r.Since, r.Until, expiredBefore,
		r.AfterCreatedAt, r.AfterID, limit)
}
