-- Instagram DMs (issue 10): a message the customer unsent (Meta's
-- is_deleted) stays, marked deleted.
ALTER TABLE messages ADD COLUMN deleted boolean NOT NULL DEFAULT false;
