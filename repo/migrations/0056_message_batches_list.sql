-- The developer portal lists a workspace's batches newest first in keyset
-- pages (repo.MessageBatches: ORDER BY created_at DESC, id DESC, after a
-- (created_at, id) position). This index holds the whole order, so a page
-- is one range scan with no sort, also between batches created in the same
-- instant. message_batches_workspace (workspace_id, livemode, created_at)
-- goes: this one serves everything it did.
CREATE INDEX message_batches_list ON message_batches (workspace_id, livemode, created_at DESC, id DESC);
DROP INDEX message_batches_workspace;
