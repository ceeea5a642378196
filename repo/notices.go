package repo

import (
	"context"
	"sort"
	"time"
)

// ClaimOutboxEmails takes up to limit unsent emails due at now, oldest
// first, and leases them until the given time: another sender skips them
// until then, so a sender that dies mid-send delays an email, never loses it.
func (q Queries) ClaimOutboxEmails(ctx context.Context, now, until time.Time, limit int) ([]OutboxEmail, error) {
	var out []OutboxEmail
	err := q.selectRows(ctx, &out, `UPDATE outbox_emails SET next_attempt_at = $2 WHERE id IN (
		SELECT id FROM outbox_emails WHERE sent_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= $1)
		ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+outboxEmailColumns, now, until, limit)
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// OutboxEmailSent marks an email accepted by the relay.
func (q Queries) OutboxEmailSent(ctx context.Context, id string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE outbox_emails SET sent_at = $2, attempts = attempts + 1,
		next_attempt_at = NULL, last_error = NULL WHERE id = $1 AND sent_at IS NULL`, id, at)
	return err
}

// RetryOutboxEmail counts a refused attempt and sets the next one.
func (q Queries) RetryOutboxEmail(ctx context.Context, id string, next time.Time, lastError string) error {
	_, err := q.exec(ctx, `UPDATE outbox_emails SET attempts = attempts + 1, next_attempt_at = $2,
		last_error = $3 WHERE id = $1 AND sent_at IS NULL`, id, next, lastError)
	return err
}
