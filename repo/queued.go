package repo

import (
	"context"
	"time"
)

// QueuedSend is a queued message's claim (migration 0050): what the pacer
// sends and how far it got.
type QueuedSend struct {
	MessageID   string     `db:"message_id"`
	WorkspaceID string     `db:"workspace_id"`
	Livemode    bool       `db:"livemode"`
	PaceKey     string     `db:"pace_key"`
	AccountID   string     `db:"account_id"`
	Channel     string     `db:"channel"`
	Recipient   string     `db:"recipient"`
	Marketing   bool       `db:"marketing"`
	BatchID     *string    `db:"batch_id"`
	Payload     JSONB      `db:"payload"`
	Period      string     `db:"period"`
	Shard       int        `db:"shard"`
	State       string     `db:"state"`
	QueuedAt    time.Time  `db:"queued_at"`
	NotBefore   time.Time  `db:"not_before"`
	CalledAt    *time.Time `db:"called_at"`
	CalledBy    *string    `db:"called_by"`
}

const queuedColumns = `message_id, workspace_id, livemode, pace_key, account_id, channel, recipient, marketing,
	batch_id, payload, period, shard, state, queued_at, not_before, called_at, called_by`

// InsertQueuedSend stores a queued message's claim, in its reserve's
// transaction.
func (q Queries) InsertQueuedSend(ctx context.Context, s *QueuedSend) error {
	_, err := q.exec(ctx, `INSERT INTO queued_sends (`+queuedColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, NULL, NULL)`,
		s.MessageID, s.WorkspaceID, s.Livemode, s.PaceKey, s.AccountID, s.Channel, s.Recipient, s.Marketing,
		s.BatchID, s.Payload, s.Period, s.Shard, s.State, s.QueuedAt, s.NotBefore)
	return err
}

// QueuedPaceKeys lists the pace keys with a queued message due by a time.
func (q Queries) QueuedPaceKeys(ctx context.Context, by time.Time, limit int) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `SELECT DISTINCT pace_key FROM queued_sends
		WHERE state = 'queued' AND not_before <= $1 LIMIT $2`, by, limit)
}

// TakePacerLease makes owner the pacer of a pace key until a time, when no
// other owner's lease is running at now; it reports whether owner leads.
func (q Queries) TakePacerLease(ctx context.Context, paceKey, owner string, now, until time.Time) (bool, error) {
	n, err := q.exec(ctx, `INSERT INTO pacer_leases (pace_key, owner, until) VALUES ($1, $2, $4)
		ON CONFLICT (pace_key) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until
		WHERE pacer_leases.owner = EXCLUDED.owner OR pacer_leases.until <= $3`, paceKey, owner, now, until)
	return n == 1, err
}

// DropPacerLease ends owner's lease of a pace key.
func (q Queries) DropPacerLease(ctx context.Context, paceKey, owner string) error {
	_, err := q.exec(ctx, `DELETE FROM pacer_leases WHERE pace_key = $1 AND owner = $2`, paceKey, owner)
	return err
}

// DueQueued lists up to limit queued messages of a pace key due by a time,
// oldest first, skipping the ids given (those the pacer holds already) and
// those a provider hold names (a recipient's pair rate, a customer's
// marketing limit: SetHold).
func (q Queries) DueQueued(ctx context.Context, paceKey string, by time.Time, skip []string, limit int) ([]QueuedSend, error) {
	var out []QueuedSend
	return out, q.selectRows(ctx, &out, `SELECT `+queuedColumns+` FROM queued_sends qs
		WHERE pace_key = $1 AND state = 'queued' AND not_before <= $2 AND NOT (message_id = ANY($3))
		AND NOT EXISTS (SELECT 1 FROM provider_holds h WHERE h.workspace_id = qs.workspace_id
			AND h.account_id = qs.account_id AND h.until > $2
			AND (h.recipient = qs.recipient OR (qs.marketing AND h.recipient = 'marketing:' || qs.recipient)))
		ORDER BY not_before, queued_at, message_id LIMIT $4`, paceKey, by, array(skip), limit)
}

// RecentCalls lists, per recipient, the latest call of a pace key at or
// after a time: the pair window a new pacer starts from.
func (q Queries) RecentCalls(ctx context.Context, paceKey string, since time.Time) (map[string]time.Time, error) {
	var rows []struct {
		Recipient string    `db:"recipient"`
		At        time.Time `db:"at"`
	}
	err := q.selectRows(ctx, &rows, `SELECT recipient, max(called_at) AS at FROM queued_sends
		WHERE pace_key = $1 AND called_at >= $2 GROUP BY recipient`, paceKey, since)
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.Recipient] = r.At
	}
	return out, err
}

// MarkCalled moves queued messages to sending, in their claim and on the
// message, before their provider calls: it returns the ids it moved (a
// message another pacer took, or cancelled, is not among them). Committed,
// a message is never called again.
func (q Queries) MarkCalled(ctx context.Context, ids []string, owner string, now time.Time) ([]string, error) {
	var moved []string
	if err := q.selectRows(ctx, &moved, `UPDATE queued_sends SET state = 'sending', called_at = $3, called_by = $2
		WHERE message_id = ANY($1) AND state = 'queued' RETURNING message_id`, array(ids), owner, now); err != nil || len(moved) == 0 {
		return nil, err
	}
	_, err := q.exec(ctx, `UPDATE messages SET status = 'sending' WHERE id = ANY($1) AND status = 'queued'`, array(moved))
	return moved, err
}

// DeferQueued moves the due time of queued messages to a later time.
func (q Queries) DeferQueued(ctx context.Context, ids []string, until time.Time) error {
	_, err := q.exec(ctx, `UPDATE queued_sends SET not_before = greatest(not_before, $2)
		WHERE message_id = ANY($1) AND state = 'queued'`, array(ids), until)
	return err
}

// RequeueCalled gives a called message back to the queue, due at a time:
// the provider refused it for a rate limit, so it did not go out.
func (q Queries) RequeueCalled(ctx context.Context, workspaceID, id string, until time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE queued_sends SET state = 'queued', not_before = $3, called_at = NULL, called_by = NULL
		WHERE workspace_id = $1 AND message_id = $2 AND state = 'sending'`, workspaceID, id, until)
	if err != nil || n == 0 {
		return false, err
	}
	_, err = q.exec(ctx, `UPDATE messages SET status = 'queued' WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`, workspaceID, id)
	return true, err
}

// QueuedSendOf returns a queued message's claim, locked.
func (q Queries) QueuedSendOf(ctx context.Context, workspaceID, id string) (*QueuedSend, error) {
	return one[QueuedSend](ctx, q, `SELECT `+queuedColumns+` FROM queued_sends
		WHERE workspace_id = $1 AND message_id = $2 FOR UPDATE`, workspaceID, id)
}

// SettleQueued records a queued message's end state (sent, failed).
func (q Queries) SettleQueued(ctx context.Context, id, state string) error {
	_, err := q.exec(ctx, `UPDATE queued_sends SET state = $2 WHERE message_id = $1`, id, state)
	return err
}

// MessageBatch is a batch of sends.
type MessageBatch struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	Livemode    bool      `db:"livemode"`
	Total       int       `db:"total"`
	Refused     int       `db:"refused"`
	CreatedAt   time.Time `db:"created_at"`
}

const messageBatchColumns = `id, workspace_id, livemode, total, refused, created_at`

// InsertMessageBatch stores a batch.
func (q Queries) InsertMessageBatch(ctx context.Context, b *MessageBatch) error {
	_, err := q.exec(ctx, `INSERT INTO message_batches (id, workspace_id, livemode, total, refused, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, b.ID, b.WorkspaceID, b.Livemode, b.Total, b.Refused, b.CreatedAt)
	return err
}

// SetBatchRefused records how many items of a batch were refused.
func (q Queries) SetBatchRefused(ctx context.Context, workspaceID, id string, refused int) error {
	_, err := q.exec(ctx, `UPDATE message_batches SET refused = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, id, refused)
	return err
}

// MessageBatchOf returns a batch of the scope's workspace and mode.
func (q Queries) MessageBatchOf(ctx context.Context, s Scope, id string) (*MessageBatch, error) {
	return one[MessageBatch](ctx, q, `SELECT `+messageBatchColumns+` FROM message_batches
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, s.WorkspaceID, s.Livemode, id)
}

// MessageBatches lists up to p.Limit+1 batches of the scope's workspace
// and mode, newest first, after a position (the portal's Batches; the
// extra row tells a next page).
func (q Queries) MessageBatches(ctx context.Context, s Scope, p Page) ([]MessageBatch, error) {
	var out []MessageBatch
	var afterAt time.Time
	afterID := ""
	if p.After != nil {
		afterAt, afterID = p.After.At, p.After.ID
	}
	return out, q.selectRows(ctx, &out, messageBatchesList, s.WorkspaceID, s.Livemode, afterID, afterAt, p.Limit+1)
}

// messageBatchesList is MessageBatches' statement: one range of
// message_batches_list (migration 0056), in its order.
const messageBatchesList = `SELECT ` + messageBatchColumns + ` FROM message_batches
	WHERE workspace_id = $1 AND livemode = $2 AND ($3 = '' OR (created_at, id) < ($4, $3))
	ORDER BY created_at DESC, id DESC LIMIT $5`

// BatchesStatusCounts counts the queued messages of batches by their
// status now: batch id, then status; a batch with no message is missing.
func (q Queries) BatchesStatusCounts(ctx context.Context, s Scope, ids []string) (map[string]map[string]int, error) {
	var rows []struct {
		BatchID string `db:"batch_id"`
		Status  string `db:"status"`
		N       int    `db:"n"`
	}
	err := q.selectRows(ctx, &rows, `SELECT qs.batch_id, m.status, count(*) AS n FROM queued_sends qs
		JOIN messages m ON m.id = qs.message_id AND m.workspace_id = qs.workspace_id
		WHERE qs.workspace_id = $1 AND qs.livemode = $2 AND qs.batch_id = ANY($3)
		GROUP BY qs.batch_id, m.status`, s.WorkspaceID, s.Livemode, array(ids))
	out := map[string]map[string]int{}
	for _, r := range rows {
		if out[r.BatchID] == nil {
			out[r.BatchID] = map[string]int{}
		}
		out[r.BatchID][r.Status] = r.N
	}
	return out, err
}
