-- A synced WhatsApp template keeps every component Meta lists (header,
-- body, footer, buttons) and its parameter_format (POSITIONAL or NAMED), so
-- a send's header, body and button parameters are checked against them
-- before the provider call. NULL components: a template known by its body
-- text only (the body is then its one component).
ALTER TABLE templates ADD COLUMN components jsonb;
ALTER TABLE templates ADD COLUMN parameter_format text NOT NULL DEFAULT '';

-- The wa_id WhatsApp answered for a send ("contacts":[{"input","wa_id"}])
-- when it differs from the number sent to (Brazil's ninth digit,
-- Argentina's 9): a message from that wa_id belongs to the same contact.
CREATE TABLE whatsapp_wa_ids (
  workspace_id text NOT NULL,
  livemode boolean NOT NULL,
  wa_id text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  PRIMARY KEY (workspace_id, livemode, wa_id)
);
