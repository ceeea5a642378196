-- GET /v1/conversations stays flat at a million conversations: each filter
-- has an index that serves the newest-first order (created_at DESC, id DESC)
-- directly, so a page reads its 21 rows however rare the filter's value is;
-- updated_since reads the recently active rows and sorts those few.
CREATE INDEX conversations_list_channel ON conversations (workspace_id, livemode, channel, created_at DESC, id DESC);
CREATE INDEX conversations_list_status ON conversations (workspace_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX conversations_list_website ON conversations (workspace_id, livemode, website_id, created_at DESC, id DESC);
CREATE INDEX conversations_list_active ON conversations (workspace_id, livemode, last_message_at);
