package repo

import (
	"context"

	"github.com/lib/pq"
)

// fanOutLock is the advisory lock class of the fan-out; each partition (a
// workspace's is fan_out_partition(workspace_id), migration 0061) has a
// lock of its own in it, so events of one partition become deliveries in
// seq order, one pass at a time, and the partitions go in parallel.
const fanOutLock = 727002

// TryLockFanOut takes a partition's fan-out lock for the rest of the
// transaction; it reports false, without waiting, when another fan-out
// holds it.
func (q Queries) TryLockFanOut(ctx context.Context, partition int) (bool, error) {
	var ok bool
	return ok, q.get(ctx, &ok, `SELECT pg_try_advisory_xact_lock($1, $2)`, fanOutLock, partition)
}

// UnfannedEvents returns up to limit events of a partition that have not
// produced their deliveries yet, oldest seq first, without their envelopes.
func (q Queries) UnfannedEvents(ctx context.Context, partition, limit int) ([]Event, error) {
	var out []Event
	return out, q.selectRows(ctx, &out, unfannedEvents, partition, limit)
}

var unfannedEvents = `SELECT e.seq, e.id, e.workspace_id, e.livemode, e.type, e.channel, e.website_id,
	e.conversation_id, e.created_at FROM events_unfanned u JOIN events e ON e.seq = u.seq
	WHERE u.part = $1 ORDER BY u.seq LIMIT $2`

// unfannedPartitions probes events_unfanned's primary key once per
// partition: the first waiting event of each, which no plan finds faster
// than the key (an EXISTS may be planned as a scan of every waiting event
// while the statistics count many, as after a burst).
// The count of partitions is the database's (fan_out_partitions(),
// migration 0061), as is a workspace's partition.
const unfannedPartitions = `SELECT p FROM generate_series(0, fan_out_partitions() - 1) p, LATERAL (
	SELECT u.seq FROM events_unfanned u WHERE u.part = p ORDER BY u.part, u.seq LIMIT 1) first`

// UnfannedPartitions lists the partitions with events waiting for fan-out,
// in one statement of one index probe per partition; none when every event
// has produced its deliveries.
func (q Queries) UnfannedPartitions(ctx context.Context) ([]int, error) {
	var out []int
	return out, q.selectRows(ctx, &out, unfannedPartitions)
}

// MarkFannedOut records that events of a partition have produced their
// deliveries: they leave events_unfanned.
func (q Queries) MarkFannedOut(ctx context.Context, partition int, seqs []int64) error {
	_, err := q.exec(ctx, `DELETE FROM events_unfanned WHERE part = $1 AND seq = ANY($2)`, partition, pq.Int64Array(seqs))
	return err
}

// ActiveWebhookEndpoints returns the enabled, verified, not deleted endpoints
// of some workspaces: the candidates of a fan-out.
func (q Queries) ActiveWebhookEndpoints(ctx context.Context, workspaceIDs []string) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	return out, q.selectRows(ctx, &out, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints WHERE workspace_id = ANY($1)
		AND enabled AND verified_at IS NOT NULL AND deleted_at IS NULL ORDER BY created_at, id`,
		array(workspaceIDs))
}

// insertWebhookDeliveries is one statement text for any number of rows
// (their columns as arrays), so Postgres parses and plans it once per
// connection whatever a batch's length.
const insertWebhookDeliveries = `INSERT INTO webhook_deliveries (id, workspace_id, livemode,
	endpoint_id, event_id, event_type, event_seq, channel, website_id, conversation_id,
	replay_of, status, next_attempt_at, created_at)
	SELECT d.id, d.workspace_id, d.livemode, d.endpoint_id, d.event_id, d.event_type, d.event_seq,
		d.channel, d.website_id, d.conversation_id, d.replay_of, d.status, d.next_attempt_at, d.created_at
	FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[],
		$7::bigint[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
		$13::timestamptz[], $14::timestamptz[])
		AS d(id, workspace_id, livemode, endpoint_id, event_id, event_type, event_seq, channel,
		website_id, conversation_id, replay_of, status, next_attempt_at, created_at)`

// InsertWebhookDeliveries stores new deliveries in one statement.
func (q Queries) InsertWebhookDeliveries(ctx context.Context, ds []WebhookDelivery) error {
	n := len(ds)
	if n == 0 {
		return nil
	}
	ids, ws, endpoints, events, types, status, created := make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	live, seqs := make([]bool, n), make([]int64, n)
	channels, websites, convs, replays, next := make([]*string, n), make([]*string, n), make([]*string, n),
		make([]*string, n), make([]*string, n)
	for i, d := range ds {
		ids[i], ws[i], live[i], endpoints[i], events[i], types[i] = d.ID, d.WorkspaceID, d.Livemode, d.EndpointID, d.EventID, d.EventType
		seqs[i], channels[i], websites[i], convs[i], replays[i], status[i] = d.EventSeq, d.Channel, d.WebsiteID, d.ConversationID, d.ReplayOf, d.Status
		created[i] = timeText(d.CreatedAt)
		if d.NextAttemptAt != nil {
			at := timeText(*d.NextAttemptAt)
			next[i] = &at
		}
	}
	_, err := q.exec(ctx, insertWebhookDeliveries, array(ids), array(ws), pq.BoolArray(live), array(endpoints),
		array(events), array(types), pq.Int64Array(seqs), nullableArray(channels), nullableArray(websites),
		nullableArray(convs), nullableArray(replays), array(status), nullableArray(next), array(created))
	return err
}

// ReadyWebhookDeliveries returns which of some deliveries may be attempted
// now, that is, do not wait for an earlier delivery of their conversation.
// The latest earlier delivery still open, the one whose success would hand
// this one over, is locked (FOR SHARE) before it counts: one whose success
// is being recorded at that moment is waited for and then seen finished;
// one not yet locked by its record is seen open, and its record, which
// looks for the next after it holds the row (RecordWebhookSuccess), sees
// these deliveries. Without the lock each could leave the successor to the
// other, and it would wait for the sweep. (Seen finished, it may still
// have an open delivery before it: the successor is then handed to the
// queue early, and its claim, which checks every earlier one, leaves it to
// that one's success.)
//
// The rows are locked in id order, as the batched claims and records take
// theirs (byID): locked in any order, a check and a record of several
// deliveries each waited for a row the other held, and Postgres ended the
// check as a deadlock, leaving its deliveries to the sweep.
func (q Queries) ReadyWebhookDeliveries(ctx context.Context, ids []string) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `WITH latest AS (SELECT e.id FROM webhook_deliveries d,
			LATERAL (SELECT p.id FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
				AND p.conversation_id = d.conversation_id AND p.event_seq < d.event_seq AND p.`+openDelivery+`
				ORDER BY p.event_seq DESC LIMIT 1) e
			WHERE d.id = ANY($1) AND d.conversation_id IS NOT NULL),
		still_open AS (SELECT p.endpoint_id, p.conversation_id, p.event_seq FROM webhook_deliveries p
			WHERE p.id IN (SELECT id FROM latest) AND p.`+openDelivery+` ORDER BY p.id FOR SHARE)
		SELECT d.id FROM webhook_deliveries d WHERE d.id = ANY($1) AND NOT EXISTS (SELECT 1 FROM still_open o
			WHERE o.endpoint_id = d.endpoint_id AND o.conversation_id = d.conversation_id AND o.event_seq < d.event_seq)
		ORDER BY d.event_seq`, array(ids))
}
