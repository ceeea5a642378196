-- Webhook endpoints are workspace configuration, shared by both modes
-- (decisions 2). A deleted endpoint keeps its row (deleted_at) so that its
-- past deliveries stay listed and a replay to it answers endpoint_disabled.
-- status is derived: disabled unless enabled, unverified until verified_at.
CREATE TABLE webhook_endpoints (
    id                    text PRIMARY KEY,
    workspace_id          text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    url                   text NOT NULL,
    description           text NOT NULL DEFAULT '',
    channels              text[] NOT NULL DEFAULT '{}',
    events                text[] NOT NULL DEFAULT '{*}',
    website_ids           text[] NOT NULL DEFAULT '{}',
    metadata_only         boolean NOT NULL DEFAULT false,
    test_events           boolean NOT NULL DEFAULT false,
    enabled               boolean NOT NULL DEFAULT true,
    disabled_reason       text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
    verified_at           timestamptz,
    -- The first failed attempt of the current run of failures; a success
    -- clears it. 72 hours of it switch the endpoint off.
    failing_since         timestamptz,
    -- Signing secrets, AES-GCM sealed with a key derived from MSGSVC_SECRET.
    secret                bytea NOT NULL,
    previous_secret       bytea,
    previous_secret_until timestamptz,
    created_at            timestamptz NOT NULL,
    deleted_at            timestamptz
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, created_at, id) WHERE deleted_at IS NULL;

-- Fan-out marks each event once it has produced its deliveries, in the same
-- transaction. A flag rather than a "last seq" cursor: seq is taken at
-- insert, not at commit, so an event can become visible after one with a
-- higher seq, and a cursor would skip it for good.
ALTER TABLE events ADD COLUMN fanned_out boolean NOT NULL DEFAULT false;
CREATE INDEX events_unfanned ON events (seq) WHERE NOT fanned_out;
CREATE INDEX events_created ON events (created_at);

-- One row per (event, endpoint) and per replay. Postgres holds the state;
-- asynq tasks carry only the id.
CREATE TABLE webhook_deliveries (
    id                   text PRIMARY KEY,
    workspace_id         text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode             boolean NOT NULL,
    endpoint_id          text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id             text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event_type           text NOT NULL,
    event_seq            bigint NOT NULL,
    channel              text,
    website_id           text,
    -- With endpoint_id, the ordering key: deliveries of one conversation to
    -- one endpoint go one at a time in event_seq order. NULL (replays,
    -- contact events) is unordered.
    conversation_id      text,
    replay_of            text,
    status               text NOT NULL CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed')),
    attempts             integer NOT NULL DEFAULT 0,
    last_response_status integer,
    last_error           text,
    first_attempt_at     timestamptz,
    next_attempt_at      timestamptz,
    -- A worker holds the delivery while it attempts it; a crashed worker's
    -- lease runs out and the sweep hands the delivery to another.
    lease_until          timestamptz,
    lease_token          text,
    -- When the sweep last re-enqueued it, so a backlog is not re-enqueued on
    -- every sweep.
    swept_at             timestamptz,
    created_at           timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (workspace_id, livemode, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (endpoint_id, conversation_id, event_seq)
    WHERE status IN ('pending', 'retrying') AND conversation_id IS NOT NULL;

-- Emails the service owes people (endpoint switched off, …). Sending them
-- comes with the email channel; until then they wait here.
CREATE TABLE outbox_emails (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    to_address   text NOT NULL,
    subject      text NOT NULL,
    body         text NOT NULL,
    created_at   timestamptz NOT NULL,
    sent_at      timestamptz
);
CREATE INDEX outbox_emails_unsent ON outbox_emails (created_at) WHERE sent_at IS NULL;
