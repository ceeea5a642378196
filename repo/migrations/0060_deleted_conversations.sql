-- A conversation's deletion deletes its request log rows (service-api.md,
-- Delivery rules 9), but a row may still wait in an API process's batch,
-- or be in a batch committing beside the deletion. Each batch checked
-- every row's conversation against conversations, one probe a row, and
-- still left behind the row of a batch inserted while the deletion
-- committed. The deletion now leaves the conversation's id here; the
-- request log's purge (every minute) deletes the rows of these ids, and
-- the ids themselves once no batch can hold a row of them any more.
CREATE TABLE deleted_conversations (
    id         text PRIMARY KEY,
    deleted_at timestamptz NOT NULL
);
CREATE INDEX deleted_conversations_deleted_at ON deleted_conversations (deleted_at);
