package repo

import (
	"context"
	"time"
)

// APIKeyRecord is a key as the portal lists it: the key, its name, the last
// four characters of its secret and its history.
type APIKeyRecord struct {
	APIKey
	Name        string     `db:"name"`
	SecretLast4 string     `db:"secret_last4"`
	CreatedAt   *time.Time `db:"created_at"`
	LastUsedAt  *time.Time `db:"last_used_at"`
	RevokedAt   *time.Time `db:"revoked_at"`
	RolledAt    *time.Time `db:"rolled_at"`
}

const apiKeyRecordColumns = apiKeyColumns + `, name, secret_last4, created_at, last_used_at, revoked_at, rolled_at`

// APIKeyRecords lists a workspace's keys, newest first (keys without a
// creation time, from a fixture, last, by id).
func (q Queries) APIKeyRecords(ctx context.Context, workspaceID string) ([]APIKeyRecord, error) {
	var out []APIKeyRecord
	return out, q.selectRows(ctx, &out, `SELECT `+apiKeyRecordColumns+` FROM api_keys WHERE workspace_id = $1
		ORDER BY created_at DESC NULLS LAST, id DESC`, workspaceID)
}

// APIKeyRecord returns one key of a workspace; lock takes its row for the
// transaction (a roll or a revoke).
func (q Queries) APIKeyRecord(ctx context.Context, workspaceID, id string, lock bool) (*APIKeyRecord, error) {
	query := `SELECT ` + apiKeyRecordColumns + ` FROM api_keys WHERE workspace_id = $1 AND id = $2`
	if lock {
		query += ` FOR UPDATE`
	}
	return one[APIKeyRecord](ctx, q, query, workspaceID, id)
}

// InsertAPIKey stores a new key.
func (q Queries) InsertAPIKey(ctx context.Context, k *APIKeyRecord) error {
	_, err := q.exec(ctx, `INSERT INTO api_keys (`+apiKeyRecordColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
		k.ID, k.WorkspaceID, k.SecretHash, k.Livemode, array(k.Scopes), array(k.Channels), array(k.WebsiteIDs),
		array(k.IPAllowlist), k.ExpiresAt, k.Revoked, k.RolledTo, k.GraceUntil, k.Version,
		k.Name, k.SecretLast4, k.CreatedAt, k.LastUsedAt, k.RevokedAt, k.RolledAt)
	return err
}

// RevokeAPIKey revokes a key of a workspace at a time; it says whether the
// key was active until then (false: unknown, or revoked already).
func (q Queries) RevokeAPIKey(ctx context.Context, workspaceID, id string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE api_keys SET revoked = true, revoked_at = $3
		WHERE workspace_id = $1 AND id = $2 AND NOT revoked`, workspaceID, id, at)
	return n == 1, err
}

// RollAPIKey points a key at its successor: it works until graceUntil.
func (q Queries) RollAPIKey(ctx context.Context, workspaceID, id, successor string, at, graceUntil time.Time) error {
	n, err := q.exec(ctx, `UPDATE api_keys SET rolled_to = $3, grace_until = $4, rolled_at = $5
		WHERE workspace_id = $1 AND id = $2 AND rolled_to IS NULL`, workspaceID, id, successor, graceUntil, at)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetAPIKeyLabel sets a key's name and the last four characters of its
// secret (the seeder's keys).
func (q Queries) SetAPIKeyLabel(ctx context.Context, id, name, last4 string) error {
	_, err := q.exec(ctx, `UPDATE api_keys SET name = $2, secret_last4 = $3 WHERE id = $1`, id, name, last4)
	return err
}

// TouchAPIKeys records when keys were last used, one statement for many
// keys; an older time never replaces a newer one.
func (q Queries) TouchAPIKeys(ctx context.Context, ids []string, at []time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := q.exec(ctx, `UPDATE api_keys k SET last_used_at = v.at
		FROM unnest($1::text[], $2::timestamptz[]) AS v (id, at)
		WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`, array(ids), array(timeStrings(at)))
	return err
}

// timeStrings binds times as a text array a statement casts to
// timestamptz[].
func timeStrings(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = timeText(t)
	}
	return out
}

// timeText is a time as an element of a text array that a statement casts
// to timestamptz[].
func timeText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
