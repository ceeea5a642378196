-- A webhook endpoint belongs to the mode of the key that made it: keys of
-- the other mode do not see or change it, and a test endpoint receives
-- sandbox events only. Which key made an existing endpoint is not recorded,
-- so existing endpoints become live ones: they go on receiving what they
-- received (live events, and sandbox events where test_events is on), and
-- live keys manage them.
ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_endpoints ALTER COLUMN livemode DROP DEFAULT;
