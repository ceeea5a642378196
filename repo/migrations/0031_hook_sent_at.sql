-- A customer's pending hooks are processed in the order the customer sent
-- their contents: sent_at is the earliest Meta timestamp of the customer
-- messages a hook carries (its received_at when it carries none). Hooks
-- stored before have none: their received_at stands in.
ALTER TABLE provider_hooks ADD COLUMN sent_at timestamptz;
