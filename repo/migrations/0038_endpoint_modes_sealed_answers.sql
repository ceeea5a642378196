-- A webhook endpoint belongs to the mode of the key that made it: keys of
-- the other mode do not see or change it, and a test endpoint receives
-- sandbox events only. Which key made an existing endpoint is not recorded,
-- so existing endpoints become live ones: they go on receiving what they
-- received (live events, and sandbox events where test_events is on), and
-- live keys manage them.
ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_endpoints ALTER COLUMN livemode DROP DEFAULT;
-- Stored answers of Idempotency-Key requests are sealed (AES-256-GCM, the
-- key of MSGSVC_ENCRYPTION_KEY), so a signing secret in a create or roll
-- answer is never kept in the clear. Answers stored before are plain;
-- those holding a signing secret are dropped (a retry of one runs again),
-- the others expire within 24 hours.
ALTER TABLE idempotency_keys ADD COLUMN response_sealed boolean NOT NULL DEFAULT false;
DELETE FROM idempotency_keys
WHERE response_body IS NOT NULL AND position('whsec_'::bytea IN response_body) > 0;
