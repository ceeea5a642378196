-- The next delivery in order of a delivery whose success is being recorded
-- (issue 16): the earliest delivery still open of the same endpoint and
-- conversation, other than that one. The record finds it in its own
-- statement, and in a statement every query reads the snapshot taken when
-- the statement began, which may predate a successor the fan-out committed
-- while the record waited for the row it records; the fan-out, checking
-- that row before the record locked it, found it open and left the
-- successor to the record. A VOLATILE function's queries each take a
-- snapshot of their own when they run, after the record holds its row, so
-- of the two one always sees the other (repo.ReadyWebhookDeliveries).
CREATE FUNCTION webhook_next_in_order(p_endpoint text, p_conversation text, p_after text,
    OUT next_id text, OUT next_at timestamptz) VOLATILE AS $$
BEGIN
    SELECT d.id, d.next_attempt_at INTO next_id, next_at FROM webhook_deliveries d
    WHERE d.endpoint_id = p_endpoint AND d.conversation_id = p_conversation
      AND d.status IN ('pending', 'retrying') AND d.id <> p_after
    ORDER BY d.event_seq LIMIT 1;
END $$ LANGUAGE plpgsql;
