package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// WebhookEndpoint is a customer URL that receives events, as stored. Its
// secrets are sealed; graph opens them.
type WebhookEndpoint struct {
	ID                  string         `db:"id"`
	WorkspaceID         string         `db:"workspace_id"`
	URL                 string         `db:"url"`
	Description         string         `db:"description"`
	Channels            pq.StringArray `db:"channels"`
	Events              pq.StringArray `db:"events"`
	WebsiteIDs          pq.StringArray `db:"website_ids"`
	MetadataOnly        bool           `db:"metadata_only"`
	TestEvents          bool           `db:"test_events"`
	Enabled             bool           `db:"enabled"`
	DisabledReason      *string        `db:"disabled_reason"`
	VerifiedAt          *time.Time     `db:"verified_at"`
	FailingSince        *time.Time     `db:"failing_since"`
	Secret              []byte         `db:"secret"`
	PreviousSecret      []byte         `db:"previous_secret"`
	PreviousSecretUntil *time.Time     `db:"previous_secret_until"`
	CreatedAt           time.Time      `db:"created_at"`
	DeletedAt           *time.Time     `db:"deleted_at"`
}

const webhookEndpointColumns = `id, workspace_id, url, description, channels, events, website_ids,
	metadata_only, test_events, enabled, disabled_reason, verified_at, failing_since, secret,
	previous_secret, previous_secret_until, created_at, deleted_at`

// InsertWebhookEndpoint stores a new endpoint.
func (q Queries) InsertWebhookEndpoint(ctx context.Context, e *WebhookEndpoint) error {
	e.Channels, e.Events, e.WebsiteIDs = array(e.Channels), array(e.Events), array(e.WebsiteIDs)
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO webhook_endpoints (id, workspace_id, url, description,
		channels, events, website_ids, metadata_only, test_events, enabled, disabled_reason, verified_at,
		secret, created_at) VALUES (:id, :workspace_id, :url, :description, :channels, :events,
		:website_ids, :metadata_only, :test_events, :enabled, :disabled_reason, :verified_at, :secret,
		:created_at)`, e)
	return err
}

// WebhookEndpoints lists the live (not deleted) endpoints of a workspace,
// oldest first.
func (q Queries) WebhookEndpoints(ctx context.Context, workspaceID string) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	return out, q.selectRows(ctx, &out, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints
		WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, workspaceID)
}

// WebhookEndpoint returns a live endpoint of a workspace.
func (q Queries) WebhookEndpoint(ctx context.Context, workspaceID, id string) (*WebhookEndpoint, error) {
	return one[WebhookEndpoint](ctx, q, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints
		WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`, workspaceID, id)
}

// LockWebhookEndpoint is WebhookEndpoint, locked until the transaction ends.
func (q Queries) LockWebhookEndpoint(ctx context.Context, workspaceID, id string) (*WebhookEndpoint, error) {
	return one[WebhookEndpoint](ctx, q, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints
		WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, workspaceID, id)
}

// WebhookEndpointAnyState returns an endpoint by id, deleted or not, for the
// workers, which act on ids they stored themselves.
func (q Queries) WebhookEndpointAnyState(ctx context.Context, id string) (*WebhookEndpoint, error) {
	return one[WebhookEndpoint](ctx, q, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints WHERE id = $1`, id)
}

// UpdateWebhookEndpoint writes the settings a PATCH or a verification can
// change.
func (q Queries) UpdateWebhookEndpoint(ctx context.Context, e *WebhookEndpoint) error {
	e.Channels, e.Events, e.WebsiteIDs = array(e.Channels), array(e.Events), array(e.WebsiteIDs)
	n, err := sqlxNamedExec(ctx, q, `UPDATE webhook_endpoints SET url = :url, description = :description,
		channels = :channels, events = :events, website_ids = :website_ids,
		metadata_only = :metadata_only, test_events = :test_events, enabled = :enabled,
		disabled_reason = :disabled_reason, verified_at = :verified_at, failing_since = :failing_since
		WHERE workspace_id = :workspace_id AND id = :id AND deleted_at IS NULL`, e)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetWebhookVerified records the outcome of a verification of url; it does
// nothing when the URL changed meanwhile. No background verification stays
// planned after it.
func (q Queries) SetWebhookVerified(ctx context.Context, id, url string, at *time.Time) error {
	_, err := q.exec(ctx, `UPDATE webhook_endpoints SET verified_at = $3, reverify_at = NULL
		WHERE id = $1 AND url = $2 AND deleted_at IS NULL`, id, url, at)
	return err
}

// RollWebhookSecret replaces the signing secret; the old one co-signs until
// previousUntil (nil: not at all).
func (q Queries) RollWebhookSecret(ctx context.Context, workspaceID, id string, secret, previous []byte, previousUntil *time.Time) error {
	n, err := q.exec(ctx, `UPDATE webhook_endpoints SET secret = $3, previous_secret = $4,
		previous_secret_until = $5 WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
		workspaceID, id, secret, previous, previousUntil)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// DeleteWebhookEndpoint marks an endpoint deleted and drops its deliveries
// that were still to be attempted.
func (q Queries) DeleteWebhookEndpoint(ctx context.Context, workspaceID, id string, now time.Time) error {
	n, err := q.exec(ctx, `UPDATE webhook_endpoints SET deleted_at = $3, enabled = false
		WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`, workspaceID, id, now)
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	_, err = q.exec(ctx, `DELETE FROM webhook_deliveries WHERE endpoint_id = $1
		AND status IN ('pending', 'retrying')`, id)
	return err
}

// WebhookFailing notes a failed attempt: it starts the endpoint's run of
// failures if none is running and returns when the run started.
func (q Queries) WebhookFailing(ctx context.Context, id string, now time.Time) (time.Time, error) {
	var since time.Time
	return since, q.get(ctx, &since, `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2)
		WHERE id = $1 RETURNING failing_since`, id, now)
}

// SwitchOffWebhook disables an enabled endpoint for a reason and fails its
// deliveries still to be attempted. It reports whether this call switched it
// off, so the owner is told once.
func (q Queries) SwitchOffWebhook(ctx context.Context, id, reason, lastError string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2
		WHERE id = $1 AND enabled AND deleted_at IS NULL`, id, reason)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = q.exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
		last_error = coalesce(last_error || '; ', '') || $2
		WHERE endpoint_id = $1 AND status IN ('pending', 'retrying')`, id, lastError)
	return true, err
}

// OutboxEmail is an email the service owes a person.
type OutboxEmail struct {
	ID          string     `db:"id"`
	WorkspaceID string     `db:"workspace_id"`
	ToAddress   string     `db:"to_address"`
	Subject     string     `db:"subject"`
	Body        string     `db:"body"`
	CreatedAt   time.Time  `db:"created_at"`
	SentAt      *time.Time `db:"sent_at"`
	// Attempts counts the relay's refusals and the accepted send.
	Attempts int `db:"attempts"`
	// NextAttemptAt is when a sender may try it again: after a refusal,
	// or after the lease of a sender that claimed it.
	NextAttemptAt *time.Time `db:"next_attempt_at"`
	LastError     *string    `db:"last_error"`
}

const outboxEmailColumns = `id, workspace_id, to_address, subject, body, created_at, sent_at,
	attempts, next_attempt_at, last_error`

// InsertOutboxEmail queues an email.
func (q Queries) InsertOutboxEmail(ctx context.Context, m *OutboxEmail) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO outbox_emails (id, workspace_id, to_address, subject,
		body, created_at) VALUES (:id, :workspace_id, :to_address, :subject, :body, :created_at)`, m)
	return err
}

// OutboxEmails lists the emails queued for a workspace, oldest first.
func (q Queries) OutboxEmails(ctx context.Context, workspaceID string) ([]OutboxEmail, error) {
	var out []OutboxEmail
	return out, q.selectRows(ctx, &out, `SELECT `+outboxEmailColumns+` FROM outbox_emails WHERE workspace_id = $1
		ORDER BY created_at, id`, workspaceID)
}
