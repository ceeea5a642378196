-- A send's Idempotency-Key names the message reserved under it: every retry
-- answers from that message, whatever became of the request that reserved it.
ALTER TABLE idempotency_keys ADD COLUMN message_id text;

-- What a live send's reserve created (a new contact, a new conversation)
-- while its message is sending. Their contact.created and
-- conversation.created are recorded when the message is settled (sent, or
-- its outcome unknown); a refusal removes them, so a refused send leaves
-- nothing behind.
CREATE TABLE send_creations (
    message_id      text PRIMARY KEY,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    livemode        boolean NOT NULL,
    contact_id      text,
    conversation_id text
);

-- The customers a stored Meta hook is about (whatsapp:{phone_number_id}:{wa_id},
-- instagram:{account}:{customer}): a hook is processed after every older
-- pending hook of the same customer, so a customer's messages keep their
-- order across a crash, and hooks of different customers go in parallel.
ALTER TABLE provider_hooks ADD COLUMN order_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX provider_hooks_pending_keys ON provider_hooks USING gin (order_keys) WHERE processed_at IS NULL;
