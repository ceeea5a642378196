-- GET /v1/conversations?channel=…&status=… stays flat at a million
-- conversations: with only the single-column list indexes, Postgres ANDs the
-- channel index with the partial conversations_assigned (status = 'open')
-- and sorts every match (77 ms for a page 90% deep at 1M rows, against 7.6 ms
-- with this index; docs/performance.md).
CREATE INDEX conversations_list_channel_status ON conversations (workspace_id, livemode, channel, status, created_at DESC, id DESC);
