package repo

import (
	"context"
	"strconv"
	"time"

	"github.com/lib/pq"
)

// StreamCursor is a place in the event stream: every event at or before it
// in (XID, Seq) order has been emitted.
type StreamCursor struct {
	XID uint64
	Seq int64
}

// StreamEvent is an event and its place in the stream.
type StreamEvent struct {
	Event
	Cursor StreamCursor
}

// StreamFilter narrows the stream: a key's channels and websites (empty
// means all) and event types (empty means all). It keeps events as
// auth.EventVisible does: an event of no website (contact.*) only when no
// websites are named.
type StreamFilter struct {
	Channels   []string
	WebsiteIDs []string
	Types      []string
}

// StreamHorizon is the oldest transaction of this database that may still
// record an event: every transaction with a lower id has ended, so its
// events are visible to any later statement. Only this database's sessions
// count (a long transaction elsewhere on the server does not hold the stream
// back); msgsvc writes events under its own role, whose sessions
// pg_stat_activity always shows. Read it in a statement before the events.
func (q Queries) StreamHorizon(ctx context.Context) (uint64, error) {
	var row struct {
		XMax    string         `db:"xmax"`
		Running pq.StringArray `db:"running"`
	}
	if err := q.get(ctx, &row, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax,
		ARRAY(SELECT backend_xid::text FROM pg_stat_activity
		      WHERE datname = current_database() AND backend_xid IS NOT NULL) AS running`); err != nil {
		return 0, err
	}
	xmax, err := strconv.ParseUint(row.XMax, 10, 64)
	if err != nil {
		return 0, err
	}
	horizon := xmax
	for _, r := range row.Running {
		x32, err := strconv.ParseUint(r, 10, 32)
		if err != nil {
			return 0, err
		}
		// backend_xid is the 32-bit xid: put it in xmax's epoch, or the one
		// before when the counter wrapped in between.
		x := xmax&^0xFFFFFFFF | x32
		if x > xmax && xmax > 0xFFFFFFFF {
			x -= 1 << 32
		}
		horizon = min(horizon, x)
	}
	return horizon, nil
}

// EventStreamPosition is the place of one event of the scope's workspace
// and mode in the stream, and when it was recorded.
func (q Queries) EventStreamPosition(ctx context.Context, s Scope, id string) (StreamCursor, time.Time, error) {
	row, err := one[struct {
		XID       string    `db:"xid"`
		Seq       int64     `db:"seq"`
		CreatedAt time.Time `db:"created_at"`
	}](ctx, q, `SELECT xid::text AS xid, seq, created_at FROM events WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
	if err != nil {
		return StreamCursor{}, time.Time{}, err
	}
	x, err := strconv.ParseUint(row.XID, 10, 64)
	return StreamCursor{XID: x, Seq: row.Seq}, row.CreatedAt, err
}

// EventsForStream lists the events of the scope's workspace and mode after
// a cursor, in stream order, whose transactions are below horizon (from
// StreamHorizon, read in an earlier statement): no event can commit behind
// them later. Test events (endpoint.test) are for their one endpoint only.
func (q Queries) EventsForStream(ctx context.Context, s Scope, after StreamCursor, horizon uint64, f StreamFilter, limit int) ([]StreamEvent, error) {
	var rows []struct {
		Event
		XID string `db:"xid"`
	}
	err := q.selectRows(ctx, &rows, `SELECT `+eventColumns+`, xid::text AS xid FROM events
		WHERE workspace_id = $1 AND livemode = $2
		  AND (xid, seq) > ($3::text::xid8, $4)
		  AND xid < $9::text::xid8
		  AND (coalesce(cardinality($5::text[]), 0) = 0 OR channel IS NULL OR channel = ANY($5))
		  AND (coalesce(cardinality($6::text[]), 0) = 0 OR website_id = ANY($6))
		  AND (coalesce(cardinality($7::text[]), 0) = 0 OR type = ANY($7))
		  AND type <> 'endpoint.test'
		ORDER BY xid, seq LIMIT $8`,
		s.WorkspaceID, s.Livemode, strconv.FormatUint(after.XID, 10), after.Seq,
		pq.StringArray(f.Channels), pq.StringArray(f.WebsiteIDs), pq.StringArray(f.Types), limit,
		strconv.FormatUint(horizon, 10))
	if err != nil {
		return nil, err
	}
	out := make([]StreamEvent, len(rows))
	for i, r := range rows {
		x, err := strconv.ParseUint(r.XID, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = StreamEvent{Event: r.Event, Cursor: StreamCursor{XID: x, Seq: r.Seq}}
	}
	return out, nil
}
