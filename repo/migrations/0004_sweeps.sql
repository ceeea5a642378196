-- Sandbox messages waiting for their delivered/failed step, so the sweep that
-- catches lost tasks reads only those.
CREATE INDEX messages_sandbox_sent ON messages (created_at) WHERE livemode = false AND status = 'sent';
