-- Rich messages: what a message carries besides its text, in
-- typed fields (provider_message_id, reply_to, forwarded, referral and the
-- object of its type: location, contacts, interactive, reaction, order,
-- story, share, unsupported, system, comment), as graph/model.Rich writes
-- it. NULL on messages without any.
ALTER TABLE messages ADD COLUMN content jsonb;

-- A file that is provider media keeps the provider's media id, so a failed
-- download can be fetched again (POST /v1/files/{id}/refetch); its bytes
-- are empty until then.
ALTER TABLE files ADD COLUMN provider_media_id text;
