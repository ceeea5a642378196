-- Website chat (live.md 7): the widget settings of a website, its visitors
-- and the ratings of closed chats.
CREATE TABLE website_widgets (
    website_id             text PRIMARY KEY REFERENCES websites (id) ON DELETE CASCADE,
    workspace_id           text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    color                  text NOT NULL DEFAULT '',
    greeting               text NOT NULL DEFAULT '',
    -- hex(HMAC-SHA256(identity_secret, user_id)) verifies a visitor; the
    -- secret is sealed (graph/seal, additional data "website_widgets:<id>").
    identity_secret_sealed text
);

-- A visitor is one browser (its visitor_token, kept only as a SHA-256 hash)
-- on one website, known as a live contact (external_id).
CREATE TABLE widget_visitors (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    website_id   text NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    token_hash   text NOT NULL UNIQUE,
    contact_id   text NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    user_id      text,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);
CREATE INDEX widget_visitors_contact ON widget_visitors (contact_id);

-- One rating per closed website chat.
CREATE TABLE conversation_ratings (
    conversation_id text PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    visitor_id      text NOT NULL,
    score           integer NOT NULL CHECK (score BETWEEN 1 AND 5),
    comment         text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL
);

-- Outbound website messages a widget has not yet received.
CREATE INDEX messages_website_undelivered ON messages (conversation_id, created_at)
    WHERE channel = 'website' AND direction = 'outbound' AND status = 'sent';
CREATE INDEX conversations_website_contact ON conversations (contact_id, website_id, created_at DESC)
    WHERE channel = 'website' AND livemode;
