-- The sandbox's delivered/failed step is a batched pass over Postgres
-- (issue 16): every 200 ms each worker takes the sandbox messages still sent
-- whose delay has run out, oldest first. This partial index holds exactly
-- those messages, in the pass's order (created_at, id), so a pass reads the
-- rows it takes and stops, however large messages grows and however long
-- the backlog. It replaces messages_sandbox_sent (0004), which the stale
-- sweep used; that sweep's query is served by this index too.
CREATE INDEX messages_sandbox_due ON messages (created_at, id)
    WHERE livemode = false AND status = 'sent' AND direction = 'outbound';
DROP INDEX messages_sandbox_sent;
