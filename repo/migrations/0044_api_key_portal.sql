-- API keys made in the portal (issue 39): a name, the last four characters
-- of the secret (the list shows svc_live_…abcd; the secret itself is only
-- hashed), when it was created, last used (written in batches, so it may lag
-- by a flush interval: docs/reference.md), revoked and rolled. Keys from a
-- fixture or an older version have no created_at.
ALTER TABLE api_keys
    ADD COLUMN name         text NOT NULL DEFAULT '',
    ADD COLUMN secret_last4 text NOT NULL DEFAULT '',
    ADD COLUMN created_at   timestamptz,
    ADD COLUMN last_used_at timestamptz,
    ADD COLUMN revoked_at   timestamptz,
    ADD COLUMN rolled_at    timestamptz;
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
