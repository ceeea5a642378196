-- The fan-out works in partitions of workspaces, each under a lock of its
-- own, so one workspace's burst, or one slow pass, holds up no other
-- partition (issue 16: no global serialisation in the fan-out). Order only
-- matters within a conversation, and a conversation is in one workspace.
-- The partition is the last character of the workspace id modulo 8: ids end
-- in random base-32 characters, and ascii() is immutable, unlike hashtext(),
-- which a major version may change under an index. The waiting events are
-- read per partition, in seq order, from this index.
DROP INDEX events_unfanned;
CREATE INDEX events_unfanned ON events ((ascii(right(workspace_id, 1)) % 8), seq) WHERE NOT fanned_out;
