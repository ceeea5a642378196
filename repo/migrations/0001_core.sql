-- Workspace configuration: shared by live and sandbox data.
CREATE TABLE workspaces (
    id               text PRIMARY KEY,
    name             text NOT NULL,
    plan             text NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
    status           text NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
    owner_email      text NOT NULL DEFAULT '',
    messages_limit   integer NOT NULL CHECK (messages_limit >= 0),
    rate_per_second  integer NOT NULL CHECK (rate_per_second > 0),
    rate_per_minute  integer NOT NULL CHECK (rate_per_minute > 0)
);

CREATE TABLE websites (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    domains      text[] NOT NULL DEFAULT '{}',
    seq          bigserial NOT NULL
);
CREATE INDEX websites_workspace ON websites (workspace_id, seq);

-- WhatsApp numbers, Instagram accounts and email addresses. Email ids are short
-- names ("support") that repeat across workspaces, hence the composite key.
CREATE TABLE channel_accounts (
    workspace_id       text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id                 text NOT NULL,
    channel            text NOT NULL CHECK (channel IN ('whatsapp', 'instagram', 'email')),
    website_id         text NOT NULL REFERENCES websites (id),
    name               text NOT NULL DEFAULT '',
    phone_number       text NOT NULL DEFAULT '',
    username           text NOT NULL DEFAULT '',
    address            text NOT NULL DEFAULT '',
    status             text NOT NULL DEFAULT 'connected',
    marketing_messages text NOT NULL DEFAULT '',
    processing         boolean NOT NULL DEFAULT true,
    forwarding_active  boolean NOT NULL DEFAULT false,
    seq                bigserial NOT NULL,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE email_domains (
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    domain       text NOT NULL,
    verified     boolean NOT NULL DEFAULT false,
    processing   boolean NOT NULL DEFAULT true,
    PRIMARY KEY (workspace_id, domain)
);

CREATE TABLE agents (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    email        text NOT NULL DEFAULT '',
    active       boolean NOT NULL DEFAULT true
);

CREATE TABLE templates (
    id                  text PRIMARY KEY,
    workspace_id        text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    whatsapp_account_id text NOT NULL,
    name                text NOT NULL,
    language            text NOT NULL,
    category            text NOT NULL CHECK (category IN ('MARKETING', 'UTILITY', 'AUTHENTICATION')),
    status              text NOT NULL CHECK (status IN ('APPROVED', 'PENDING', 'REJECTED')),
    body                text NOT NULL DEFAULT '',
    UNIQUE (workspace_id, whatsapp_account_id, name, language)
);

CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    secret_hash  text NOT NULL UNIQUE,
    livemode     boolean NOT NULL,
    scopes       text[] NOT NULL DEFAULT '{}',
    channels     text[] NOT NULL DEFAULT '{}',
    website_ids  text[] NOT NULL DEFAULT '{}',
    ip_allowlist text[] NOT NULL DEFAULT '{}',
    expires_at   timestamptz,
    revoked      boolean NOT NULL DEFAULT false,
    rolled_to    text,
    grace_until  timestamptz,
    version      text NOT NULL
);

-- Customer data: every row carries livemode (decisions 2).
CREATE TABLE contacts (
    id                 text PRIMARY KEY,
    workspace_id       text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode           boolean NOT NULL,
    name               text NOT NULL DEFAULT '',
    email              text,
    phone              text,
    instagram_user_id  text,
    external_id        text,
    opt_out_whatsapp   boolean NOT NULL DEFAULT false,
    opt_out_email      boolean NOT NULL DEFAULT false,
    opt_out_instagram  boolean NOT NULL DEFAULT false,
    email_suppressed   jsonb,
    first_seen_channel text,
    source             text NOT NULL DEFAULT 'captured',
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    last_seen_at       timestamptz
);
CREATE UNIQUE INDEX contacts_email ON contacts (workspace_id, livemode, lower(email)) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX contacts_phone ON contacts (workspace_id, livemode, phone) WHERE phone IS NOT NULL;
CREATE UNIQUE INDEX contacts_instagram ON contacts (workspace_id, livemode, instagram_user_id) WHERE instagram_user_id IS NOT NULL;
CREATE UNIQUE INDEX contacts_external ON contacts (workspace_id, livemode, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX contacts_list ON contacts (workspace_id, livemode, created_at DESC, id DESC);

CREATE TABLE conversations (
    id                  text PRIMARY KEY,
    workspace_id        text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode            boolean NOT NULL,
    channel             text NOT NULL CHECK (channel IN ('website', 'whatsapp', 'instagram', 'email')),
    account_id          text NOT NULL,
    website_id          text NOT NULL REFERENCES websites (id),
    contact_id          text REFERENCES contacts (id) ON DELETE SET NULL,
    status              text NOT NULL CHECK (status IN ('open', 'closed')),
    mode                text NOT NULL CHECK (mode IN ('ai', 'queued_for_human', 'human', 'external')),
    subject             text,
    assigned_agent_id   text REFERENCES agents (id),
    tags                text[] NOT NULL DEFAULT '{}',
    integration_replies boolean NOT NULL DEFAULT true,
    is_comment          boolean NOT NULL DEFAULT false,
    message_count       integer NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    last_message_at     timestamptz NOT NULL,
    last_inbound_at     timestamptz
);
CREATE INDEX conversations_list ON conversations (workspace_id, livemode, created_at DESC, id DESC);
CREATE INDEX conversations_contact ON conversations (workspace_id, livemode, contact_id, channel, account_id);

CREATE TABLE messages (
    id              text PRIMARY KEY,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    channel         text NOT NULL,
    direction       text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
    sender_type     text NOT NULL,
    sender_name     text,
    type            text NOT NULL DEFAULT 'text',
    text            text,
    html            text,
    html_raw        text,
    email           jsonb,
    attachments     jsonb NOT NULL DEFAULT '[]',
    status          text NOT NULL,
    delivery        jsonb,
    created_at      timestamptz NOT NULL
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);

-- The outbox of everything the webhook part announces, written in the same
-- transaction as the change (architecture: Events).
CREATE TABLE events (
    seq             bigserial UNIQUE,
    id              text PRIMARY KEY,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    type            text NOT NULL,
    channel         text,
    website_id      text,
    conversation_id text,
    envelope        jsonb NOT NULL,
    created_at      timestamptz NOT NULL
);
CREATE INDEX events_workspace ON events (workspace_id, livemode, created_at);
CREATE INDEX events_conversation ON events (conversation_id);

-- Messages the channels accepted, per workspace, mode and UTC month (quota).
CREATE TABLE usage_counters (
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode     boolean NOT NULL,
    period       text NOT NULL,
    used         integer NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, livemode, period)
);
