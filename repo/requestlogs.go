package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// RequestLog is one /v1 request as the request log keeps it: never a body,
// header or query string.
type RequestLog struct {
	RequestID      string    `db:"request_id"`
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	CreatedAt      time.Time `db:"created_at"`
	KeyID          string    `db:"key_id"`
	Method         string    `db:"method"`
	Path           string    `db:"path"`
	Status         int       `db:"status"`
	ErrorCode      *string   `db:"error_code"`
	LatencyMS      float64   `db:"latency_ms"`
	ConversationID *string   `db:"conversation_id"`
	// KeyName and KeySecretLast4 are the key's, read with the row (nil
	// should the key be gone).
	KeyName        *string `db:"key_name"`
	KeySecretLast4 *string `db:"key_secret_last4"`
}

const requestLogColumns = `l.request_id, l.workspace_id, l.livemode, l.created_at, l.key_id, l.method, l.path,
	l.status, l.error_code, l.latency_ms, l.conversation_id,
	k.name AS key_name, k.secret_last4 AS key_secret_last4`

// InsertRequestLogs writes many request log rows in one statement. A request's
// id is made once (NewID) and a batch is written once, so rows are plain
// inserts, with no look for a conflict first. A row of a conversation
// deleted while it waited in a batch is written too: the purge deletes it
// (PurgeDeletedConversationLogs), so a deletion leaves no log behind, with
// no look at the conversation for every row.
func (q Queries) InsertRequestLogs(ctx context.Context, logs []RequestLog) error {
	n := len(logs)
	if n == 0 {
		return nil
	}
	ids, ws, at, keys, methods, paths := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	live, status, latency := make([]bool, n), make([]int64, n), make([]float64, n)
	codes, convs := make([]*string, n), make([]*string, n)
	for i, l := range logs {
		ids[i], ws[i], live[i], at[i] = l.RequestID, l.WorkspaceID, l.Livemode, timeText(l.CreatedAt)
		keys[i], methods[i], paths[i], status[i] = l.KeyID, l.Method, l.Path, int64(l.Status)
		codes[i], latency[i], convs[i] = l.ErrorCode, l.LatencyMS, l.ConversationID
	}
	_, err := q.exec(ctx, `INSERT INTO api_request_logs (request_id, workspace_id, livemode, created_at, key_id,
		method, path, status, error_code, latency_ms, conversation_id)
		SELECT l.request_id, l.workspace_id, l.livemode, l.created_at, l.key_id, l.method, l.path, l.status,
			l.error_code, l.latency_ms, l.conversation_id FROM unnest($1::text[], $2::text[], $3::boolean[], $4::timestamptz[], $5::text[], $6::text[],
			$7::text[], $8::integer[], $9::text[], $10::double precision[], $11::text[])
			AS l(request_id, workspace_id, livemode, created_at, key_id, method, path, status, error_code, latency_ms, conversation_id)`,
		array(ids), array(ws), pq.BoolArray(live), array(at), array(keys), array(methods), array(paths),
		pq.Int64Array(status), nullableArray(codes), pq.Float64Array(latency), nullableArray(convs))
	return err
}

// RequestLogFilter narrows a request log listing; zero fields do not.
type RequestLogFilter struct {
	Status    int
	KeyID     string
	Path      string
	ErrorCode string
	RequestID string
	From, To  *time.Time
}

// RequestLogs lists a workspace's request log of one mode, newest first:
// a page and one row more (cursor.Trim).
func (q Queries) RequestLogs(ctx context.Context, s Scope, f RequestLogFilter, p Page) ([]RequestLog, error) {
	var out []RequestLog
	var afterAt time.Time
	afterID := ""
	if p.After != nil {
		afterAt, afterID = p.After.At, p.After.ID
	}
	return out, q.selectRows(ctx, &out, `SELECT `+requestLogColumns+`
		FROM api_request_logs l LEFT JOIN api_keys k ON k.id = l.key_id
		WHERE l.workspace_id = $1 AND l.livemode = $2
		  AND ($3 = 0 OR l.status = $3) AND ($4 = '' OR l.key_id = $4) AND ($5 = '' OR l.path = $5)
		  AND ($6 = '' OR l.error_code = $6) AND ($7 = '' OR l.request_id = $7)
		  AND ($8::timestamptz IS NULL OR l.created_at >= $8) AND ($9::timestamptz IS NULL OR l.created_at < $9)
		  AND ($10 = '' OR (l.created_at, l.request_id) < ($11, $10))
		ORDER BY l.created_at DESC, l.request_id DESC LIMIT $12`,
		s.WorkspaceID, s.Livemode, f.Status, f.KeyID, f.Path, f.ErrorCode, f.RequestID, f.From, f.To,
		afterID, afterAt, p.Limit+1)
}

// PurgeRequestLogs deletes up to limit request log rows older than a time;
// it returns how many went.
func (q Queries) PurgeRequestLogs(ctx context.Context, before time.Time, limit int) (int64, error) {
	return q.exec(ctx, `DELETE FROM api_request_logs WHERE request_id IN (
		SELECT request_id FROM api_request_logs WHERE created_at < $1 LIMIT $2)`, before, limit)
}

// PurgeDeletedConversationLogs deletes the request log rows of the
// conversations deleted (DeleteConversation) since a batch could still
// hold a row of them, and forgets the conversations deleted before a
// time; it returns how many rows went.
func (q Queries) PurgeDeletedConversationLogs(ctx context.Context, forgetBefore time.Time) (int64, error) {
	n, err := q.exec(ctx, purgeDeletedConversationLogs)
	if err != nil {
		return 0, err
	}
	_, err = q.exec(ctx, `DELETE FROM deleted_conversations WHERE deleted_at < $1`, forgetBefore)
	return n, err
}

// purgeDeletedConversationLogs deletes the log rows of the deleted
// conversations, found by conversation one id at a time (a lateral
// subquery): as a join, the planner may hash the few ids and read the
// whole log.
const purgeDeletedConversationLogs = `DELETE FROM api_request_logs WHERE request_id IN (
	SELECT l.request_id FROM deleted_conversations d,
		LATERAL (SELECT request_id FROM api_request_logs r WHERE r.conversation_id = d.id OFFSET 0) l)`
