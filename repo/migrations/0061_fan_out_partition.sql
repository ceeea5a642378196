-- The fan-out's partition of a workspace is one rule, kept here: the
-- trigger that lists a waiting event and the fan-out's probe of each
-- partition (repo.UnfannedPartitions) both use these functions. A change
-- of the count needs the waiting events moved to their new partitions in
-- the same migration.
CREATE FUNCTION fan_out_partitions() RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN 8;

CREATE FUNCTION fan_out_partition(workspace_id text) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ascii(right(workspace_id, 1)) % fan_out_partitions();

CREATE OR REPLACE FUNCTION events_unfanned() RETURNS trigger AS $$
BEGIN
    INSERT INTO events_unfanned (part, seq) VALUES (fan_out_partition(NEW.workspace_id), NEW.seq);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
