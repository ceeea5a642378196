-- When a given-up inbound mail was put back by an operator: its retries
-- back off from then rather than from when it was received.
ALTER TABLE inbound_mails ADD COLUMN retry_from timestamptz;
