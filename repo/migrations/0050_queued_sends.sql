-- Asynchronous sends (issue 40): a send made with Prefer: respond-async, or
-- an item of POST /v1/messages/batch, is reserved like a synchronous one
-- (every rule, the quota unit taken) and stored queued; the workers' pacer
-- sends it at its account's throughput. A row here is the queued message's
-- claim: state queued until a pacer marks it called (sending, called_at set)
-- in a commit of its own just before the provider call, so a message whose
-- call may have gone out is never called again (docs/api.md, Delivery
-- guarantees).
CREATE TABLE queued_sends (
    message_id   text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode     boolean NOT NULL,
    -- pace_key is what the provider's throughput counts: the WhatsApp
    -- number at Meta (phone_number_id), else the account.
    pace_key     text NOT NULL,
    account_id   text NOT NULL,
    channel      text NOT NULL,
    recipient    text NOT NULL,
    marketing    boolean NOT NULL,
    batch_id     text,
    -- payload is the outbound message as its adapter takes it, without
    -- credentials (read again when it is sent).
    payload      jsonb NOT NULL,
    period       text NOT NULL DEFAULT '',
    shard        integer NOT NULL DEFAULT 0,
    state        text NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'failed')),
    queued_at    timestamptz NOT NULL,
    -- not_before: the pair window of the recipient, a hold of the account.
    not_before   timestamptz NOT NULL,
    called_at    timestamptz,
    called_by    text
);
CREATE INDEX queued_sends_due ON queued_sends (pace_key, not_before, queued_at) WHERE state = 'queued';
CREATE INDEX queued_sends_recipient ON queued_sends (pace_key, recipient) WHERE state = 'queued';
CREATE INDEX queued_sends_batch ON queued_sends (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX queued_sends_called ON queued_sends (pace_key, called_at) WHERE called_at IS NOT NULL;

-- One pacer leads each pace key at a time: it alone sends that key's queued
-- messages, so the key's throughput and pair window are kept by one
-- process; another takes over once the lease runs out (a crashed worker).
CREATE TABLE pacer_leases (
    pace_key text PRIMARY KEY,
    owner    text NOT NULL,
    until    timestamptz NOT NULL
);

-- A batch of sends (POST /v1/messages/batch): its items are queued_sends
-- rows with its id; refused counts the items answered with an error.
CREATE TABLE message_batches (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode     boolean NOT NULL,
    total        integer NOT NULL,
    refused      integer NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX message_batches_workspace ON message_batches (workspace_id, livemode, created_at);
