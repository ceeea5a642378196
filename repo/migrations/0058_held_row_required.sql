-- An optimistic run's held writes go as one statement that commits alone
-- (repo.InTxOptimistic): its update of a conversation at the version it
-- read, and its binding of an Idempotency-Key the request must still own,
-- must each change their row, or nothing of the statement may stay. The
-- statement passes their counts through this function, which fails it as
-- a serialization failure when a count is 0; the run then starts again in
-- a transaction.
CREATE FUNCTION held_row_required(n bigint) RETURNS bigint AS $$
BEGIN
    IF n = 0 THEN
        RAISE EXCEPTION 'the row changed since it was read' USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN n;
END
$$ LANGUAGE plpgsql;
