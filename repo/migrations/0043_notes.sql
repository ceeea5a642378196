-- Private notes (app.md 2): members' notes on a conversation. They live in
-- their own table, apart from messages, so nothing that reads messages or
-- events (/v1, webhooks, the event stream, the widget, the AI) can show one.
CREATE TABLE conversation_notes (
    id               text PRIMARY KEY,
    workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode         boolean NOT NULL,
    conversation_id  text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    author_member_id text NOT NULL,
    author_name      text NOT NULL,
    text             text NOT NULL,
    created_at       timestamptz NOT NULL
);
CREATE INDEX conversation_notes_thread ON conversation_notes (conversation_id, created_at, id);
