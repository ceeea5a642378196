-- Live sending core (issue 9): provider credentials, the reserve/confirm
-- pipeline's provider ids, durable provider webhooks, synced templates and
-- rate-limit holds.

-- Provider credentials of a channel account, sealed (graph/seal, AES-256-GCM
-- bound to the row). provider_key is the account's id at the provider (the
-- WhatsApp phone_number_id, the Instagram ig_user_id or page_id): not a
-- secret, it routes inbound webhooks to the account.
CREATE TABLE account_providers (
    workspace_id text NOT NULL,
    account_id   text NOT NULL,
    channel      text NOT NULL,
    provider_key text NOT NULL,
    sealed       text NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, account_id),
    FOREIGN KEY (workspace_id, account_id) REFERENCES channel_accounts (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX account_providers_key ON account_providers (channel, provider_key);

-- Templates per mode: test keys list the fixture's (livemode false), live
-- keys the ones synced from the WABA (livemode true).
ALTER TABLE templates ADD COLUMN livemode boolean NOT NULL DEFAULT false;
ALTER TABLE templates DROP CONSTRAINT templates_workspace_id_whatsapp_account_id_name_language_key;
ALTER TABLE templates ADD CONSTRAINT templates_mode_unique UNIQUE (workspace_id, livemode, whatsapp_account_id, name, language);

-- Every provider message of our messages, outbound (the ids a send got) and
-- inbound (the wamid of a received message, so a retried webhook creates
-- nothing twice). A message sent as several provider messages has one row
-- per part; its status is the least advanced of its parts.
CREATE TABLE provider_messages (
    channel      text NOT NULL,
    provider_id  text NOT NULL,
    message_id   text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    part         integer NOT NULL,
    status       text NOT NULL,
    PRIMARY KEY (channel, provider_id)
);
CREATE INDEX provider_messages_message ON provider_messages (message_id, part);

-- Outbound messages between reserve and confirm, so the sweep reads only
-- those.
CREATE INDEX messages_sending ON messages (created_at) WHERE status = 'sending';

-- Provider webhooks as they arrived (raw, signature checked), kept until
-- processed so a crash loses nothing; the sweep re-queues the unprocessed.
CREATE TABLE provider_hooks (
    id           text PRIMARY KEY,
    source       text NOT NULL,
    payload      bytea NOT NULL,
    received_at  timestamptz NOT NULL,
    processed_at timestamptz,
    attempts     integer NOT NULL DEFAULT 0,
    last_error   text
);
CREATE INDEX provider_hooks_pending ON provider_hooks (received_at) WHERE processed_at IS NULL;

-- Rate-limit holds after a provider's 130429 (the number: recipient '') or
-- 131056 (one recipient): a send before until answers 429 without a call.
CREATE TABLE provider_holds (
    workspace_id text NOT NULL,
    account_id   text NOT NULL,
    recipient    text NOT NULL,
    until        timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, account_id, recipient)
);
