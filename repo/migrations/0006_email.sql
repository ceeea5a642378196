-- Email (issue 11): DKIM keys of sending domains (sealed), the Message-IDs
-- of inbound mail for threading, and inbound mail as it arrived, stored
-- before the SMTP 250 and processed as a job so a crash loses nothing.

ALTER TABLE email_domains
    ADD COLUMN dkim_selector   text NOT NULL DEFAULT '',
    ADD COLUMN dkim_key_sealed text NOT NULL DEFAULT '';

-- Message-IDs (without angle brackets) of stored email messages. Outbound
-- ones are <{msg_id}@{domain}> and are not listed: their id is in them.
CREATE TABLE email_message_ids (
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    header_id       text NOT NULL,
    message_id      text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, livemode, header_id)
);
CREATE INDEX email_message_ids_conversation ON email_message_ids (conversation_id, created_at);

-- Mail accepted by the inbound SMTP listener, as it arrived.
CREATE TABLE inbound_mails (
    id           text PRIMARY KEY,
    mail_from    text NOT NULL,
    recipients   text[] NOT NULL,
    raw          bytea NOT NULL,
    received_at  timestamptz NOT NULL,
    processed_at timestamptz,
    attempts     integer NOT NULL DEFAULT 0,
    last_error   text
);
CREATE INDEX inbound_mails_pending ON inbound_mails (received_at) WHERE processed_at IS NULL;
