-- Stored answers of Idempotency-Key requests are sealed (AES-256-GCM, the
-- key of MSGSVC_ENCRYPTION_KEY), so a signing secret in a create or roll
-- answer is never kept in the clear. Answers stored before are plain;
-- those holding a signing secret are dropped (a retry of one runs again),
-- the others expire within 24 hours.
ALTER TABLE idempotency_keys ADD COLUMN response_sealed boolean NOT NULL DEFAULT false;
DELETE FROM idempotency_keys
WHERE response_body IS NOT NULL AND position('whsec_'::bytea IN response_body) > 0;
