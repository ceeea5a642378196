-- Every message changes its conversation's last_message_at and updated_at
-- (an inbound one last_inbound_at too). While those columns were in indexes
-- of conversations (the inbox views, updated_since, the widget's closed
-- chats), no update of a conversation could be a heap-only (HOT) update:
-- each message wrote a new entry into all nineteen indexes of the table,
-- the tags' GIN among them, and vacuum cleaned them all again.
--
-- The columns a message changes, with the few the inbox views filter on,
-- are now copied into conversation_activity, a narrow row per conversation
-- that holds the indexes ordered by activity; conversations keeps its own
-- columns (every read of a conversation reads them there) and only indexes
-- that no message changes, so a message's update of its conversation is
-- heap-only. The copy is kept by triggers, in the statement that changes
-- the conversation, whoever writes it.
CREATE TABLE conversation_activity (
    id                text PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    workspace_id      text NOT NULL,
    livemode          boolean NOT NULL,
    channel           text NOT NULL,
    status            text NOT NULL,
    mode              text NOT NULL,
    assigned_agent_id text,
    last_message_at   timestamptz NOT NULL,
    last_inbound_at   timestamptz,
    updated_at        timestamptz NOT NULL
);

INSERT INTO conversation_activity (id, workspace_id, livemode, channel, status, mode, assigned_agent_id,
    last_message_at, last_inbound_at, updated_at)
SELECT id, workspace_id, livemode, channel, status, mode, assigned_agent_id,
    last_message_at, last_inbound_at, updated_at FROM conversations;

CREATE FUNCTION conversation_activity() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO conversation_activity (id, workspace_id, livemode, channel, status, mode, assigned_agent_id,
            last_message_at, last_inbound_at, updated_at)
        VALUES (NEW.id, NEW.workspace_id, NEW.livemode, NEW.channel, NEW.status, NEW.mode, NEW.assigned_agent_id,
            NEW.last_message_at, NEW.last_inbound_at, NEW.updated_at);
    ELSE
        UPDATE conversation_activity SET status = NEW.status, mode = NEW.mode,
            assigned_agent_id = NEW.assigned_agent_id, last_message_at = NEW.last_message_at,
            last_inbound_at = NEW.last_inbound_at, updated_at = NEW.updated_at
        WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER conversation_activity_insert AFTER INSERT ON conversations
    FOR EACH ROW EXECUTE FUNCTION conversation_activity();
CREATE TRIGGER conversation_activity_update AFTER UPDATE ON conversations
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.mode IS DISTINCT FROM NEW.mode
        OR OLD.assigned_agent_id IS DISTINCT FROM NEW.assigned_agent_id
        OR OLD.last_message_at IS DISTINCT FROM NEW.last_message_at
        OR OLD.last_inbound_at IS DISTINCT FROM NEW.last_inbound_at
        OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
    EXECUTE FUNCTION conversation_activity();

DROP INDEX conversations_inbox_all, conversations_inbox_status, conversations_inbox_mode,
    conversations_inbox_mine, conversations_inbox_unread, conversations_list_active,
    conversations_website_closed;

-- The inbox views but Waiting (whose order, queued_at, changes with the
-- mode, not with messages: conversations_inbox_waiting stays), most
-- recently active first. Each partial index holds only the rows its view
-- lists, so a message into an open, unassigned conversation that no bot
-- handles enters the All index alone (and the unread one once its customer
-- wrote). All also serves /v1/conversations?updated_since.
CREATE INDEX conversation_activity_all ON conversation_activity
    (workspace_id, livemode, last_message_at DESC, id DESC);
CREATE INDEX conversation_activity_closed ON conversation_activity
    (workspace_id, livemode, last_message_at DESC, id DESC) WHERE status = 'closed';
CREATE INDEX conversation_activity_mode ON conversation_activity
    (workspace_id, livemode, mode, last_message_at DESC, id DESC) WHERE status = 'open' AND mode IN ('ai', 'external');
CREATE INDEX conversation_activity_mine ON conversation_activity
    (workspace_id, livemode, assigned_agent_id, last_message_at DESC, id DESC)
    WHERE status = 'open' AND assigned_agent_id IS NOT NULL;
-- Unread counts (repo.InboxUnread), as conversations_inbox_unread was.
CREATE INDEX conversation_activity_unread ON conversation_activity (workspace_id, livemode, assigned_agent_id, mode)
    WHERE status <> 'closed' AND last_inbound_at IS NOT NULL;
-- The widget hubs' live chats closed since their last check (repo.WebsiteChanges).
CREATE INDEX conversation_activity_website_closed ON conversation_activity (updated_at)
    WHERE channel = 'website' AND status = 'closed' AND livemode;

-- Room on each page for the new version of a row an update writes beside
-- the old one: a heap-only update needs it on the same page.
ALTER TABLE conversations SET (fillfactor = 80);
