-- Each attempt of a webhook delivery, as the portal shows it (issue 39):
-- when it was made, the HTTP status of the answer (NULL when none came),
-- how long it took, the answer's first 1 KB as text, and why it failed.
-- The request body is never kept (a metadata-only endpoint's included):
-- the event is. A row is written by the statement that records the
-- attempt's outcome (repo.RecordWebhookAttempt, the batched success
-- record), so it costs no round trip of its own; it goes with its
-- delivery (retention, deleting an endpoint's open deliveries or a
-- conversation).
CREATE TABLE webhook_attempts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id     text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at    timestamptz NOT NULL,
    response_status integer,
    latency_ms      integer NOT NULL,
    response_body   text,
    error           text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
