-- A contact's latest conversation on an account (repo.LatestConversation,
-- on every inbound message, visitor session and send to a contact) is one
-- probe of this index, which holds every condition of the lookup and then
-- its order. Without planner statistics (autovacuum off, nothing analysed
-- after a migration) every index of conversations looks as cheap as
-- another for a lookup of one row, and Postgres took the oldest that
-- served the order, conversations_list_channel: it walked the workspace's
-- conversations newest first until the contact's came up (3-6 ms a call at
-- 16,000 website conversations). The lookup now names only columns of this
-- index, which leads with the contact, and checks the workspace on the row
-- it finds (a contact's conversations are in its workspace).
-- conversations_contact (workspace_id, livemode, contact_id, channel,
-- account_id) goes: this index serves its lookups, by contact, as well.
CREATE INDEX conversations_latest ON conversations
    (contact_id, channel, account_id, is_comment, created_at DESC, id DESC);
DROP INDEX conversations_contact;
