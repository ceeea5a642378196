-- GET /v1/events/stream reads the outbox in commit-safe order. seq is taken
-- at insert, not at commit, so a cursor on seq alone could skip an event
-- that commits after a later one. Each event keeps the id of the
-- transaction that recorded it; the stream emits an event only once its
-- transaction is older than every running one of the database, in
-- (xid, seq) order, so nothing committed can still appear behind its cursor.
ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_stream ON events (workspace_id, livemode, xid, seq);
