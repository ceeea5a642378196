-- Instagram comments (issue 10): the provider's comment behind each inbound
-- comment message. A comment arrives once however often Meta retries it
-- (unique comment id per account); a commenter's comments on one media share
-- one conversation (the thread); a reply, public or private, answers the
-- provider's comment id.
CREATE TABLE instagram_comments (
    message_id      text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    account_id      text NOT NULL,
    conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    comment_id      text NOT NULL,
    parent_id       text,
    media_id        text NOT NULL,
    from_id         text NOT NULL,
    field           text NOT NULL CHECK (field IN ('comments', 'live_comments')),
    created_at      timestamptz NOT NULL,
    UNIQUE (workspace_id, livemode, account_id, comment_id)
);
CREATE INDEX instagram_comments_thread ON instagram_comments (workspace_id, livemode, account_id, from_id, media_id, created_at DESC);
CREATE INDEX instagram_comments_conversation ON instagram_comments (conversation_id, created_at DESC);
