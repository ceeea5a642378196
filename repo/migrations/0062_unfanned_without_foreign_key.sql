-- An event waiting for the fan-out is listed in events_unfanned by the
-- trigger, in the statement that inserts the event, and its foreign key
-- checked every such row against events by a query of its own (an index
-- probe and a lock of the event's row, with its WAL record): about a
-- tenth of a send's buffer reads in Postgres while an endpoint takes its
-- events. The listing is written only by that trigger and deleted by the
-- fan-out once the deliveries exist; the two statements that delete events
-- (repo.PurgeEvents, repo.DeleteConversation) delete the events' listings
-- in the same statement (repo.deleteEvents), which the key's cascade did.
ALTER TABLE events_unfanned DROP CONSTRAINT events_unfanned_seq_fkey;
