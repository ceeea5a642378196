-- An unverified endpoint is verified again in the background (issue 17), so
-- that installing the signing secret in the receiver is enough once the
-- handshake of the create call failed. reverify_at is the next attempt
-- (NULL: none), unverified_since the start of the current unverified URL
-- (which bounds how long the attempts go on), verify_livemode the mode of
-- the key that set the URL, which the verification event carries.
ALTER TABLE webhook_endpoints
    ADD COLUMN reverify_at timestamptz,
    ADD COLUMN unverified_since timestamptz,
    ADD COLUMN verify_livemode boolean NOT NULL DEFAULT false;
CREATE INDEX webhook_endpoints_reverify ON webhook_endpoints (reverify_at) WHERE reverify_at IS NOT NULL;
