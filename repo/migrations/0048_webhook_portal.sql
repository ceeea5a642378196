-- The developer portal's webhook tools (issue 39). last_test_at is when
-- the last endpoint.test event was sent to the endpoint: one per 10 s.
ALTER TABLE webhook_endpoints ADD COLUMN last_test_at timestamptz;

-- A recovery replays, in the background, every failed delivery of an
-- endpoint in one mode created from since to until (the time it was asked
-- for), one replay per event. after_created_at and after_id are the last
-- delivery replayed, in (created_at, id) order, so a task that runs again
-- goes on after it; total is counted when it is asked for.
CREATE TABLE webhook_recoveries (
    id               text PRIMARY KEY,
    workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode         boolean NOT NULL,
    endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    since            timestamptz NOT NULL,
    until            timestamptz NOT NULL,
    state            text NOT NULL CHECK (state IN ('running', 'done', 'stopped')),
    total            integer NOT NULL,
    done             integer NOT NULL DEFAULT 0,
    after_created_at timestamptz,
    after_id         text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    finished_at      timestamptz
);
CREATE INDEX webhook_recoveries_running ON webhook_recoveries (updated_at) WHERE state = 'running';
