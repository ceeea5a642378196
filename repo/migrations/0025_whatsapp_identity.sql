-- WhatsApp customers are known by their business-scoped user id (Meta's
-- contacts[].user_id) as well as by phone: a customer who adopted a
-- username may have no phone in the webhooks at all.
ALTER TABLE contacts ADD COLUMN whatsapp_user_id text;
CREATE UNIQUE INDEX contacts_whatsapp_user_id ON contacts (workspace_id, livemode, whatsapp_user_id)
	WHERE whatsapp_user_id IS NOT NULL;

-- What an operator needs to see of a connected account: whether the app's
-- webhook subscription (POST /{waba_id}/subscribed_apps) took, and how the
-- last template sync went ({status, error, at}; null until one ran).
ALTER TABLE channel_accounts ADD COLUMN subscription jsonb;
ALTER TABLE channel_accounts ADD COLUMN template_sync jsonb;
-- Why the account last became needs_reauth ({status: failed, error, at}),
-- so a refused send can say it.
ALTER TABLE channel_accounts ADD COLUMN reauth jsonb;

-- A provider media id is downloaded once: a retried webhook, or another
-- message with the same media, reuses the stored file.
CREATE INDEX files_provider_media ON files (workspace_id, livemode, provider_media_id)
	WHERE provider_media_id IS NOT NULL;
