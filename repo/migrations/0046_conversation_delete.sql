-- Deleting a conversation (issue 39) deletes the files of its messages:
-- find them by message without reading the whole table.
CREATE INDEX files_message ON files (message_id) WHERE message_id IS NOT NULL;
