-- An event some endpoint may take waited for the fan-out in the partial
-- index events_unfanned (NOT fanned_out), and the fan-out then updated the
-- event's row to fanned_out: a second version of the row and its
-- envelope, and a new entry in each of the table's indexes, for every
-- event a webhook would carry. The waiting events are now listed in a
-- table of their own, a row per event (its fan-out partition and seq),
-- which the fan-out deletes once the deliveries exist: events are written
-- once and never updated.
--
-- The column keeps what the insert decided: born_fanned_out is true when
-- no endpoint could take the event (repo.bornFannedOut), and an event
-- born otherwise enters events_unfanned by the trigger below, in the
-- statement that inserts it.
DROP INDEX events_unfanned;
ALTER TABLE events RENAME COLUMN fanned_out TO born_fanned_out;

CREATE TABLE events_unfanned (
    part smallint NOT NULL,
    seq  bigint NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    PRIMARY KEY (part, seq)
);
-- The partition is migration 0017's: ascii(right(workspace_id, 1)) % 8.
INSERT INTO events_unfanned (part, seq)
SELECT ascii(right(workspace_id, 1)) % 8, seq FROM events WHERE NOT born_fanned_out;
-- Those already fanned out were updated to true; the ones still waiting
-- are listed above.
CREATE FUNCTION events_unfanned() RETURNS trigger AS $$
BEGIN
    INSERT INTO events_unfanned (part, seq) VALUES (ascii(right(NEW.workspace_id, 1)) % 8, NEW.seq);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER events_unfanned AFTER INSERT ON events
    FOR EACH ROW WHEN (NOT NEW.born_fanned_out) EXECUTE FUNCTION events_unfanned();
