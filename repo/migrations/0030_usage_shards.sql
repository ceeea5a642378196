-- The live-send quota without a hot row per workspace. A send takes one unit
-- from one of a few shards of its workspace, mode and month, picked at
-- random, so concurrent sends of one workspace rarely wait for each other.
-- A shard may hand out only what it was granted (cap); grants come from the
-- workspace's usage_counters row (granted), which never grants more than the
-- limit leaves, so the quota stays exact: used + granted <= messages_limit,
-- and every shard's used <= cap. A shard also keeps the limit its grants were
-- made under (granted_limit); when the workspace's limit changes, a send
-- finds none of its shards usable and takes the counter row, which shrinks
-- every shard's cap to what it used before it grants again.
ALTER TABLE usage_counters ADD COLUMN granted integer NOT NULL DEFAULT 0;

CREATE TABLE usage_shards (
    workspace_id  text NOT NULL,
    livemode      boolean NOT NULL,
    period        text NOT NULL,
    shard         integer NOT NULL,
    used          integer NOT NULL DEFAULT 0,
    cap           integer NOT NULL DEFAULT 0,
    granted_limit integer NOT NULL,
    PRIMARY KEY (workspace_id, livemode, period, shard),
    FOREIGN KEY (workspace_id, livemode, period)
        REFERENCES usage_counters (workspace_id, livemode, period) ON DELETE CASCADE,
    CHECK (used <= cap)
);

-- usage_take takes one unit from a shard that still has one granted under
-- the workspace's present limit, and reports whether it did. The row lock
-- orders concurrent takers of a shard and the WHERE, evaluated again after a
-- wait, refuses the one past its cap. An UPDATE that waited for a row and
-- then found it no longer matching keeps the row locked to the end of the
-- transaction; the exception block gives that lock back, so a send whose
-- shard was used up holds no shard while it waits for the counter row,
-- whose holder may be granting that very shard.
CREATE FUNCTION usage_take(p_workspace text, p_livemode boolean, p_period text, p_shard integer)
RETURNS boolean VOLATILE AS $$
BEGIN
    UPDATE usage_shards s SET used = s.used + 1 FROM workspaces w
    WHERE s.workspace_id = p_workspace AND s.livemode = p_livemode AND s.period = p_period
      AND s.shard = p_shard AND w.id = s.workspace_id AND s.used < s.cap
      AND s.granted_limit = w.messages_limit;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'MSU01';
    END IF;
    RETURN true;
EXCEPTION WHEN SQLSTATE 'MSU01' THEN
    RETURN false;
END $$ LANGUAGE plpgsql;
