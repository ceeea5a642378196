package repo

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"
)

// ClaimedWebhookDelivery is a delivery leased for one attempt, with what the
// attempt reads: its endpoint, whatever the endpoint's state, and its
// event's envelope and time, which are nil when the event's row is gone.
type ClaimedWebhookDelivery struct {
	WebhookDelivery
	Endpoint       WebhookEndpoint `db:"endpoint"`
	EventEnvelope  JSONB           `db:"event_envelope"`
	EventCreatedAt *time.Time      `db:"event_created_at"`
}

// claimedDeliveryJoins joins a claimed delivery (alias d) to its endpoint
// and its event. An endpoint's row is only marked deleted, and goes only
// with its workspace, which takes the deliveries with it. An event's row
// goes at every purge; the purge takes its deliveries with it too, but the
// event is joined LEFT all the same: the claim is made whether or not the
// select finds a row, and a delivery leased but not returned would wait out
// its lease for nothing, again at every sweep.
const claimedDeliveryJoins = ` JOIN webhook_endpoints e ON e.id = d.endpoint_id
	LEFT JOIN events ev ON ev.id = d.event_id`

// claimedDeliveryColumns selects a ClaimedWebhookDelivery over
// claimedDeliveryJoins.
var claimedDeliveryColumns = qualified("d", webhookDeliveryColumns) + ", " +
	nested("endpoint", qualified("e", webhookEndpointColumns)) +
	", ev.envelope AS event_envelope, ev.created_at AS event_created_at"

// openStatuses are the statuses of openDelivery, as a parameter: the
// batched statements name them so, rather than in their text, for their
// generic plans (batches).
var openStatuses = pq.StringArray{"pending", "retrying"}

// webhookClaim is one call of ClaimWebhookDelivery.
type webhookClaim struct {
	id, token  string
	now, until time.Time
}

// webhookSuccess is one call of RecordWebhookSuccess.
type webhookSuccess struct {
	id, token string
	status    int
	// log, when set, is the attempt's row of webhook_attempts, written
	// by the same statement.
	log *WebhookAttemptLog
}

// successRecord is what RecordWebhookSuccess answers.
type successRecord struct {
	recorded bool
	next     *DueWebhookDelivery
}

// ClaimWebhookDelivery leases a delivery to one worker for one attempt and
// returns it with its endpoint and event, in one round trip. It returns
// ErrNotFound when the delivery is not to be attempted now: finished, not
// yet due, held by another worker, or waiting for an earlier delivery of
// its conversation.
//
// Its commit does not wait for the WAL to reach the disk (synchronous_commit
// off, for this statement's transaction only): a lease is not worth a
// flush. A crash may forget a lease of the last fraction of a second, and
// the delivery is then attempted again, as one whose attempt the crash
// interrupted is. It runs on the Store, never in a transaction, whose
// commit it would make asynchronous as well.
//
// It goes to Postgres in one statement with the claims that other
// goroutines of the process make meanwhile (batcher): attempts in flight
// claim their deliveries as places free up, several in the time of one
// round trip.
func (s *Store) ClaimWebhookDelivery(ctx context.Context, id string, now, until time.Time, token string) (*ClaimedWebhookDelivery, error) {
	c, err := s.claims.do(ctx, webhookClaim{id: id, token: token, now: now, until: until})
	if err == nil && c == nil {
		return nil, ErrNotFound
	}
	return c, err
}

// claimDeliveriesQuery is claimWebhookDeliveries' statement.
var claimDeliveriesQuery = `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true)),
	c AS (SELECT id, token, now, until FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS c(id, token, now, until)),
	claimed AS (UPDATE webhook_deliveries d
	SET lease_until = c.until, lease_token = c.token, first_attempt_at = coalesce(d.first_attempt_at, c.now)
	FROM c WHERE EXISTS (SELECT 1 FROM unflushed) AND d.id = c.id AND d.status = ANY($5::text[]) AND d.next_attempt_at <= c.now
	AND (d.lease_until IS NULL OR d.lease_until <= c.now) AND NOT (` + waitsForEarlier + `)
	RETURNING ` + qualified("d", webhookDeliveryColumns) + `)
	SELECT ` + claimedDeliveryColumns + ` FROM claimed d` + claimedDeliveryJoins

// claimWebhookDeliveries makes claims in one statement and returns, for
// each, the delivery it leased, or nil. Each claim has its own time and
// lease token; of two claims of one delivery, one at most is answered,
// the one whose token the delivery took.
func (q Queries) claimWebhookDeliveries(ctx context.Context, claims []webhookClaim) ([]*ClaimedWebhookDelivery, error) {
	ids, tokens := make([]string, len(claims)), make([]string, len(claims))
	nows, untils := make([]string, len(claims)), make([]string, len(claims))
	for i, c := range byID(claims, func(c webhookClaim) string { return c.id }) {
		ids[i], tokens[i] = c.id, c.token
		nows[i], untils[i] = c.now.Format(time.RFC3339Nano), c.until.Format(time.RFC3339Nano)
	}
	var rows []ClaimedWebhookDelivery
	err := q.selectRows(ctx, &rows, claimDeliveriesQuery,
		pq.StringArray(ids), pq.StringArray(tokens), pq.StringArray(nows), pq.StringArray(untils), openStatuses)
	if err != nil {
		return nil, err
	}
	out := make([]*ClaimedWebhookDelivery, len(claims))
	for i := range rows {
		d := &rows[i]
		for j, c := range claims {
			if c.id == d.ID && d.LeaseToken != nil && c.token == *d.LeaseToken {
				out[j] = d
			}
		}
	}
	return out, nil
}

// RecordWebhookSuccess records a successful leased attempt and ends the
// lease, as RecordWebhookAttempt does, and in the same statement ends the
// endpoint's run of failures (failing_since), which a success always does,
// and finds the next delivery of the same endpoint and conversation still
// to be attempted, which waited for this one: one round trip for the
// outcome nearly every attempt has, where a transaction of the two updates
// and a look for the next took five. It reports false when the lease was
// lost, in which case nothing was written, the endpoint included.
//
// The next delivery is read after the record holds its row, in a snapshot
// of its own (webhook_next_in_order, migration 0019), not in the
// statement's, which may predate a successor committed while the record
// waited for its row (in a batch, for the rows before it): either the
// fan-out's ReadyWebhookDeliveries locked the row first and left the
// successor to this record, which then sees it, or it waits for this
// record and sees the delivery finished.
//
// Its commit does not wait for the WAL to reach the disk either, as the
// claim's does not: a flush would be most of a step of a conversation's
// chain (attempt, record, claim the next; 3-6 ms a step with it, 0.6-1.4
// ms without, BenchmarkWebhookChainStep), and so would bound one
// conversation's deliveries a second. A crash of Postgres may forget the successes of the
// last fraction of a second; those deliveries are then attempted again
// (at least once), and in order: the WAL reaches the disk in its order, so
// a success that is kept was recorded after every success before it of its
// conversation, and they are kept too. The event and its deliveries commit
// synchronously, so nothing is lost, only sent twice.
//
// It goes to Postgres in one statement with the records that other
// goroutines of the process make meanwhile (batcher); the endpoints whose
// run of failures it ends are locked in id order, as its deliveries are
// (byID), so two such statements cannot deadlock.
func (s *Store) RecordWebhookSuccess(ctx context.Context, id, token string, responseStatus int) (bool, *DueWebhookDelivery, error) {
	r, err := s.successes.do(ctx, webhookSuccess{id: id, token: token, status: responseStatus})
	return r.recorded, r.next, err
}

// RecordLoggedWebhookSuccess is RecordWebhookSuccess that also writes the
// attempt's row of webhook_attempts (its status is log's), in the same
// statement: no round trip of its own.
func (s *Store) RecordLoggedWebhookSuccess(ctx context.Context, id, token string, log *WebhookAttemptLog) (bool, *DueWebhookDelivery, error) {
	status := 0
	if log != nil && log.ResponseStatus != nil {
		status = *log.ResponseStatus
	}
	r, err := s.successes.do(ctx, webhookSuccess{id: id, token: token, status: status, log: log})
	return r.recorded, r.next, err
}

// recordSuccessesQuery is recordWebhookSuccesses' statement.
//
// Its deliveries are locked first, in an explicit ORDER BY id (locked), and
// only then updated, and the endpoints after them, in id order too: the
// order ReadyWebhookDeliveries locks deliveries in, whatever plan either
// statement gets (a hash join or a scan of the table would otherwise lock
// in the order of the rows on disk, and the two statements could each
// hold a row the other waits for: Postgres' deadlock detected, and the
// successors left to the sweep).
var recordSuccessesQuery = `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true)),
	s AS (SELECT id, token, status, at, latency, body FROM unnest($1::text[], $2::text[], $3::int[],
		$5::timestamptz[], $6::int[], $7::text[]) AS s(id, token, status, at, latency, body)),
	locked AS (SELECT d.id FROM webhook_deliveries d WHERE d.id = ANY($1::text[]) AND d.status = ANY($4::text[])
		ORDER BY d.id FOR NO KEY UPDATE),
	recorded AS (UPDATE webhook_deliveries d
		SET status = 'succeeded', attempts = d.attempts + 1, last_response_status = s.status,
		last_error = NULL, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL,
		swept_at = NULL
		FROM s WHERE EXISTS (SELECT 1 FROM unflushed) AND d.id = s.id AND d.id IN (SELECT id FROM locked) AND d.lease_token = s.token AND d.status = ANY($4::text[])
		RETURNING d.id, s.token, d.endpoint_id, d.conversation_id, d.event_seq),
	failing AS (SELECT id FROM webhook_endpoints WHERE id IN (SELECT endpoint_id FROM recorded)
		AND failing_since IS NOT NULL ORDER BY id FOR UPDATE),
	healthy AS (UPDATE webhook_endpoints e SET failing_since = NULL FROM failing f WHERE e.id = f.id),
	logged AS (INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, latency_ms, response_body)
		SELECT r.id, s.at, s.status, s.latency, s.body FROM recorded r JOIN s ON s.id = r.id AND s.token = r.token
		WHERE s.at IS NOT NULL)
	SELECT r.id, r.token, n.next_id, n.next_at FROM recorded r
	LEFT JOIN LATERAL webhook_next_in_order(r.endpoint_id, r.conversation_id, r.id) n ON true`

// recordWebhookSuccesses records successes in one statement and answers
// each, in order.
func (q Queries) recordWebhookSuccesses(ctx context.Context, successes []webhookSuccess) ([]successRecord, error) {
	ids, tokens := make([]string, len(successes)), make([]string, len(successes))
	statuses := make(pq.Int64Array, len(successes))
	logs := newAttemptLogValues(len(successes))
	for i, s := range byID(successes, func(s webhookSuccess) string { return s.id }) {
		ids[i], tokens[i], statuses[i] = s.id, s.token, int64(s.status)
		logs.set(i, s.log)
	}
	var rows []struct {
		ID     string     `db:"id"`
		Token  string     `db:"token"`
		NextID *string    `db:"next_id"`
		NextAt *time.Time `db:"next_at"`
	}
	err := q.selectRows(ctx, &rows, recordSuccessesQuery,
		pq.StringArray(ids), pq.StringArray(tokens), statuses, openStatuses,
		nullableArray(logs.at), logs.latencies, nullableArray(logs.bodies))
	if err != nil {
		return nil, err
	}
	out := make([]successRecord, len(successes))
	for _, row := range rows {
		for i, s := range successes {
			if s.id != row.ID || s.token != row.Token {
				continue
			}
			out[i].recorded = true
			if row.NextID != nil {
				out[i].next = &DueWebhookDelivery{ID: *row.NextID}
				if row.NextAt != nil { // an open delivery always has one
					out[i].next.NextAttemptAt = *row.NextAt
				}
			}
		}
	}
	return out, nil
}

// byID returns the inputs of a batch sorted by delivery id, the order its
// statement then locks their rows in (a nested loop over the inputs): every
// statement that locks several deliveries and waits for a lock takes them
// in that order (ReadyWebhookDeliveries too), so no two can deadlock.
func byID[T any](in []T, id func(T) string) []T {
	return slices.SortedFunc(slices.Values(in), func(a, b T) int { return strings.Compare(id(a), id(b)) })
}
