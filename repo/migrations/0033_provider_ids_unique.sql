-- A provider id routes to one account of one workspace: a WhatsApp
-- phone_number_id, an Instagram account's ig_user_id and its Facebook Page
-- id, an email address. Two accounts with one id would split a number's
-- inbound messages between workspaces, copy mail into both and let the
-- second send as the first's address.
--
-- A database that already holds such a pair is not changed: the migration
-- fails naming every pair (workspace/account), and the operator
-- disconnects (disconnectChannelAccount) or removes all but one account of
-- each, then runs `msgsvc migrate` again.
DO $$
DECLARE
    dups text;
BEGIN
    SELECT string_agg(format('%s %s (%s)', channel, provider_key, owners), '; ') INTO dups FROM (
        SELECT channel, provider_key, string_agg(workspace_id || '/' || account_id, ', ' ORDER BY workspace_id, account_id) AS owners
        FROM account_providers GROUP BY channel, provider_key HAVING count(*) > 1) d;
    IF dups IS NOT NULL THEN
        RAISE EXCEPTION 'provider ids connected to more than one account: %', dups
            USING HINT = 'Disconnect (disconnectChannelAccount) or remove all but one account of each id, then run msgsvc migrate again.';
    END IF;
    SELECT string_agg(format('%s (%s)', address, owners), '; ') INTO dups FROM (
        SELECT lower(address) AS address, string_agg(workspace_id || '/' || id, ', ' ORDER BY workspace_id, id) AS owners
        FROM channel_accounts WHERE channel = 'email' AND address <> '' GROUP BY lower(address) HAVING count(*) > 1) d;
    IF dups IS NOT NULL THEN
        RAISE EXCEPTION 'email addresses of more than one email account: %', dups
            USING HINT = 'Remove all but one email account of each address (or give the others another address in the seed file), then run msgsvc migrate again.';
    END IF;
END $$;

-- The routing key (provider_key) is the ig_user_id when known, else the
-- Page id; page_id is the Page id of an Instagram account whose credentials
-- name one ('' otherwise: WhatsApp, Instagram Login, and accounts
-- connected before this migration until they are connected again). Meta's
-- ids of Instagram accounts and of Pages never coincide, so the two
-- indexes together keep every id with one account.
ALTER TABLE account_providers ADD COLUMN page_id text NOT NULL DEFAULT '';
DROP INDEX account_providers_key;
CREATE UNIQUE INDEX account_providers_key_unique ON account_providers (channel, provider_key);
CREATE UNIQUE INDEX account_providers_page_unique ON account_providers (channel, page_id) WHERE page_id <> '';

-- Inbound mail is routed by lower(address) (MailRoutes).
CREATE UNIQUE INDEX channel_accounts_email_address_unique ON channel_accounts (lower(address))
    WHERE channel = 'email' AND address <> '';

-- A provider id of a message (a wamid, an Instagram mid) is deduplicated
-- within its workspace: a retried webhook stores nothing twice, and an id
-- another workspace holds (two connected accounts writing to each other,
-- or a tenant's payload claiming an id first) never keeps a message out.
-- The workspace is the message's, filled on insert, so every binary's
-- insert works unchanged.
ALTER TABLE provider_messages ADD COLUMN workspace_id text;
UPDATE provider_messages p SET workspace_id = m.workspace_id FROM messages m WHERE m.id = p.message_id;
ALTER TABLE provider_messages ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE provider_messages DROP CONSTRAINT provider_messages_pkey;
ALTER TABLE provider_messages ADD PRIMARY KEY (workspace_id, channel, provider_id);
CREATE FUNCTION provider_messages_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.workspace_id IS NULL THEN
        SELECT workspace_id INTO NEW.workspace_id FROM messages WHERE id = NEW.message_id;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER provider_messages_workspace BEFORE INSERT ON provider_messages
    FOR EACH ROW EXECUTE FUNCTION provider_messages_workspace();
