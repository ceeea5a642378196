-- Own processing (live.md 8): knowledge entries and AI instructions of a
-- workspace, agents' capacity, the AI's pending work and the human queue.

-- How many open assigned conversations (both modes together) routing gives
-- an agent at most.
ALTER TABLE agents ADD COLUMN max_open integer NOT NULL DEFAULT 10 CHECK (max_open >= 0);

-- What the AI knows: question/answer pairs the built-in responder ranks.
CREATE TABLE knowledge_entries (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    question     text NOT NULL,
    answer       text NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    seq          bigserial NOT NULL
);
CREATE INDEX knowledge_entries_workspace ON knowledge_entries (workspace_id, seq);

-- The workspace's instructions for the LLM responder.
CREATE TABLE ai_settings (
    workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    instructions text NOT NULL DEFAULT ''
);

-- One row per inbound message the AI owes an answer, written in the
-- transaction that stores the message (so nothing is lost on a crash) and
-- done once answered or skipped. Answered in seq order per conversation.
CREATE TABLE ai_work (
    seq             bigserial UNIQUE,
    message_id      text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL,
    done_at         timestamptz,
    outcome         text
);
CREATE INDEX ai_work_pending ON ai_work (conversation_id, seq) WHERE done_at IS NULL;

-- When a conversation last entered the human queue: routing assigns the
-- longest waiting first. Kept by a trigger so every path that changes the
-- mode (PATCH, hand-offs, GraphQL) keeps it.
ALTER TABLE conversations ADD COLUMN queued_at timestamptz;
CREATE FUNCTION conversations_queued_at() RETURNS trigger AS $$
BEGIN
    IF NEW.mode = 'queued_for_human' AND (TG_OP = 'INSERT' OR OLD.mode IS DISTINCT FROM NEW.mode) THEN
        NEW.queued_at := clock_timestamp();
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER conversations_queued_at BEFORE INSERT OR UPDATE OF mode ON conversations
    FOR EACH ROW EXECUTE FUNCTION conversations_queued_at();
CREATE INDEX conversations_waiting ON conversations (workspace_id, queued_at)
    WHERE status = 'open' AND mode = 'queued_for_human' AND assigned_agent_id IS NULL;
CREATE INDEX conversations_assigned ON conversations (assigned_agent_id) WHERE status = 'open';
