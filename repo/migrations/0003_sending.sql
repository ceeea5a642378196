-- Files uploaded with POST /v1/files or given inline on a send. The bytes live
-- in Postgres; message_id marks the one message a file is attached to.
CREATE TABLE files (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode     boolean NOT NULL,
    filename     text NOT NULL,
    content_type text NOT NULL,
    size         integer NOT NULL,
    content      bytea NOT NULL,
    message_id   text,
    created_at   timestamptz NOT NULL
);

-- Idempotency-Key records, per API key. A row is claimed with INSERT … ON
-- CONFLICT DO NOTHING before the request runs, so concurrent duplicates, even
-- on other API processes, see it in progress; response_status is set once the
-- response is final.
CREATE TABLE idempotency_keys (
    api_key_id      text NOT NULL,
    key             text NOT NULL,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    request_hash    text NOT NULL,
    request_id      text NOT NULL,
    response_status integer,
    response_body   bytea,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- The one private reply (Instagram reply_as: dm) of each comment.
CREATE TABLE private_replies (
    comment_message_id text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    message_id         text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    created_at         timestamptz NOT NULL
);
