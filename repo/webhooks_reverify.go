package repo

import (
	"context"
	"time"
)

// DueVerification is an unverified endpoint whose background verification
// is due.
type DueVerification struct {
	ID              string    `db:"id"`
	URL             string    `db:"url"`
	UnverifiedSince time.Time `db:"unverified_since"`
	Livemode        bool      `db:"verify_livemode"`
}

const dueVerificationColumns = `id, url, unverified_since, verify_livemode`

// ScheduleWebhookReverify plans the next background verification of url
// at at (nil: none), for an endpoint still unverified with that URL.
func (q Queries) ScheduleWebhookReverify(ctx context.Context, id, url string, since time.Time, livemode bool, at *time.Time) error {
	_, err := q.exec(ctx, `UPDATE webhook_endpoints SET reverify_at = $3, unverified_since = $4,
		verify_livemode = $5 WHERE id = $1 AND url = $2 AND verified_at IS NULL AND deleted_at IS NULL`,
		id, url, at, since, livemode)
	return err
}

// ClaimWebhookReverifications returns up to limit enabled, unverified
// endpoints whose background verification is due at now, and moves their
// next attempt to leaseUntil, so that another worker's sweep does not run
// the same handshake meanwhile.
func (q Queries) ClaimWebhookReverifications(ctx context.Context, now, leaseUntil time.Time, limit int) ([]DueVerification, error) {
	var out []DueVerification
	return out, q.selectRows(ctx, &out, `UPDATE webhook_endpoints SET reverify_at = $2
		WHERE id IN (SELECT id FROM webhook_endpoints WHERE reverify_at <= $1
			AND unverified_since IS NOT NULL AND verified_at IS NULL AND enabled AND deleted_at IS NULL
			ORDER BY reverify_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+dueVerificationColumns, now, leaseUntil, limit)
}
