-- The request log of /v1 (issue 39, service-api.md Delivery rules 9): one
-- row per authenticated request, written in batches by the API processes,
-- kept for the webhooks' retention period. Never a body, header or query:
-- the route pattern, the key's id, the outcome and the conversation touched.
CREATE TABLE api_request_logs (
    request_id      text PRIMARY KEY,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    created_at      timestamptz NOT NULL,
    key_id          text NOT NULL,
    method          text NOT NULL,
    path            text NOT NULL,
    status          integer NOT NULL,
    error_code      text,
    latency_ms      double precision NOT NULL,
    conversation_id text
);
CREATE INDEX api_request_logs_list ON api_request_logs (workspace_id, livemode, created_at DESC, request_id DESC);
CREATE INDEX api_request_logs_conversation ON api_request_logs (conversation_id) WHERE conversation_id IS NOT NULL;
CREATE INDEX api_request_logs_created ON api_request_logs (created_at);
