-- Owner notices (issue 11 item 5): outbox_emails rows go out through the
-- mail relay, retried with a bounded backoff until the relay accepts them.
-- next_attempt_at is also the lease of a sender that claimed the row: a
-- sender that dies mid-send leaves it claimed until then, and another sends.
ALTER TABLE outbox_emails
    ADD COLUMN attempts        integer NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN last_error      text;
