package repo

import (
	"context"
	"time"
)

// IdempotencyRecord is one Idempotency-Key of one API key: the hash of the
// request that claimed it and, once final, its response.
type IdempotencyRecord struct {
	APIKeyID       string `db:"api_key_id"`
	Key            string `db:"key"`
	WorkspaceID    string `db:"workspace_id"`
	Livemode       bool   `db:"livemode"`
	RequestHash    string `db:"request_hash"`
	RequestID      string `db:"request_id"`
	ResponseStatus *int   `db:"response_status"`
	ResponseBody   []byte `db:"response_body"`
	// ResponseSealed says ResponseBody is sealed (graph/seal's base64);
	// answers stored before sealing began are plain.
	ResponseSealed bool      `db:"response_sealed"`
	CreatedAt      time.Time `db:"created_at"`
	// MessageID is the message a send reserved under the key (nil before
	// its reserve, and for other requests).
	MessageID *string `db:"message_id"`
}

const idempotencyColumns = `api_key_id, key, workspace_id, livemode, request_hash, request_id,
	response_status, response_body, response_sealed, created_at, message_id`

// ClaimIdempotencyKey inserts the record unless the key exists; it reports
// whether this request now owns the key. It runs as its own statement, so a
// concurrent duplicate on any API process sees the claim at once.
func (q Queries) ClaimIdempotencyKey(ctx context.Context, rec *IdempotencyRecord) (bool, error) {
	n, err := sqlxNamedExec(ctx, q, `INSERT INTO idempotency_keys (api_key_id, key, workspace_id,
		livemode, request_hash, request_id, created_at) VALUES (:api_key_id, :key, :workspace_id,
		:livemode, :request_hash, :request_id, :created_at) ON CONFLICT DO NOTHING`, rec)
	return n == 1, err
}

// IdempotencyKey returns the record of a key.
func (q Queries) IdempotencyKey(ctx context.Context, apiKeyID, key string) (*IdempotencyRecord, error) {
	return one[IdempotencyRecord](ctx, q, `SELECT `+idempotencyColumns+` FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`, apiKeyID, key)
}

// RetakeIdempotencyKey gives a key whose record expired, or whose request
// died before it reserved anything, to a new request. It succeeds only if
// the record is still the one the caller read, so two requests retaking
// the same key agree on one owner; unless expired, a key bound to a
// message (or answered) is never retaken.
func (q Queries) RetakeIdempotencyKey(ctx context.Context, rec *IdempotencyRecord, oldRequestID string, expired bool) (bool, error) {
	n, err := q.exec(ctx, `UPDATE idempotency_keys SET workspace_id = $4, livemode = $5, request_hash = $6,
		request_id = $7, response_status = NULL, response_body = NULL, response_sealed = false, created_at = $8, message_id = NULL
		WHERE api_key_id = $1 AND key = $2 AND request_id = $3
		AND ($9 OR (message_id IS NULL AND response_status IS NULL))`,
		rec.APIKeyID, rec.Key, oldRequestID, rec.WorkspaceID, rec.Livemode, rec.RequestHash, rec.RequestID, rec.CreatedAt, expired)
	return n == 1, err
}

// BindIdempotencyKey names the message a send reserves under its key, in
// the reserve's transaction (or with its optimistic run's writes); false
// when the request no longer owns the key (a retry took it over), and the
// reserve must not commit.
func (q Queries) BindIdempotencyKey(ctx context.Context, apiKeyID, key, requestID, messageID string) (bool, error) {
	if q.Optimistic() {
		// Bound when the run's writes commit; when it is not, they keep
		// nothing and the run goes again in a transaction, where this
		// answers false.
		return true, q.holdRequired(ctx, bindIdempotencyKey, apiKeyID, key, requestID, messageID)
	}
	n, err := q.exec(ctx, bindIdempotencyKey, apiKeyID, key, requestID, messageID)
	return n == 1, err
}

const bindIdempotencyKey = `UPDATE idempotency_keys SET message_id = $4
		WHERE api_key_id = $1 AND key = $2 AND request_id = $3 AND message_id IS NULL`

// FinishIdempotencyKey stores the final response of the request owning a
// key, its body sealed by the caller.
func (q Queries) FinishIdempotencyKey(ctx context.Context, apiKeyID, key, requestID string, status int, sealedBody []byte) error {
	_, err := q.exec(ctx, `UPDATE idempotency_keys SET response_status = $4, response_body = $5, response_sealed = true
		WHERE api_key_id = $1 AND key = $2 AND request_id = $3`, apiKeyID, key, requestID, status, sealedBody)
	return err
}

// ReleaseIdempotencyKey forgets a key whose request did not reach a final
// answer, so a retry runs it again.
func (q Queries) ReleaseIdempotencyKey(ctx context.Context, apiKeyID, key, requestID string) error {
	_, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND request_id = $3`,
		apiKeyID, key, requestID)
	return err
}
