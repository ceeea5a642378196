-- The rows every request or message writes (a message, its events, their
-- webhook deliveries, a /v1 request's log row) no longer check their
-- workspace_id against workspaces. Each check was a statement of its own
-- in the insert, locking the workspace's row FOR KEY SHARE: every
-- concurrent send of a workspace locked the same row, and Postgres had to
-- record the lockers together (a multixact) for nearly every one. A
-- workspace is never deleted, and these rows take their workspace from the
-- caller's scope or from the conversation they belong to, which still
-- checks it (conversations_workspace_id_fkey).
ALTER TABLE messages DROP CONSTRAINT messages_workspace_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_workspace_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_workspace_id_fkey;
ALTER TABLE api_request_logs DROP CONSTRAINT api_request_logs_workspace_id_fkey;

-- The request log's purge reads its oldest rows by time (repo.PurgeRequestLogs).
-- The rows are written in time order and never updated, so a block range
-- index serves that read at a fraction of a B-tree's cost on every insert.
DROP INDEX api_request_logs_created;
CREATE INDEX api_request_logs_created ON api_request_logs USING brin (created_at) WITH (autosummarize = on);

-- A delivery's claim changes only columns no index holds (its lease), so it
-- can be a heap-only update, if its page has room for the new version:
-- deliveries are inserted together and filled their pages, and nearly
-- every claim wrote a new entry into all six indexes.
ALTER TABLE webhook_deliveries SET (fillfactor = 80);

-- Two events are written for every message. events_workspace (from the
-- first schema) serves no query any more, and the purge reads the oldest
-- events by time (repo.PurgeEvents), as the request log's does, through a
-- block range index: events are written in time order, and never updated.
DROP INDEX events_workspace;
DROP INDEX events_created;
CREATE INDEX events_created ON events USING brin (created_at) WITH (autosummarize = on);
