-- The agent inbox (app.md 2): each member's read marks, and one index per
-- view so that a page of any view reads its rows in order, however many
-- conversations the workspace has (docs/performance.md, The inbox).

-- A member read a conversation up to its customer's last message:
-- read_inbound_at is the conversation's last_inbound_at when she read it,
-- so a later customer message (a later last_inbound_at) makes it unread
-- again and nothing has to be written when one arrives. A conversation with
-- no row is unread once the customer wrote. Rows go with the conversation.
CREATE TABLE conversation_reads (
    member_id       text NOT NULL,
    conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    read_inbound_at timestamptz,
    read_at         timestamptz NOT NULL,
    PRIMARY KEY (member_id, conversation_id)
);

-- Mine, AI, External, Closed and All list the most recently active first;
-- Waiting the longest waiting first.
CREATE INDEX conversations_inbox_all ON conversations (workspace_id, livemode, last_message_at DESC, id DESC);
CREATE INDEX conversations_inbox_status ON conversations (workspace_id, livemode, status, last_message_at DESC, id DESC);
CREATE INDEX conversations_inbox_mode ON conversations (workspace_id, livemode, mode, last_message_at DESC, id DESC)
    WHERE status = 'open';
CREATE INDEX conversations_inbox_mine ON conversations (workspace_id, livemode, assigned_agent_id, last_message_at DESC, id DESC)
    WHERE status = 'open';
CREATE INDEX conversations_inbox_waiting ON conversations (workspace_id, livemode, queued_at, id)
    WHERE status = 'open' AND mode = 'queued_for_human' AND assigned_agent_id IS NULL;
-- The tag filter: a rare tag is found through its index, not by walking a view.
CREATE INDEX conversations_inbox_tags ON conversations USING gin (tags);
