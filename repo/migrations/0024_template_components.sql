-- A synced WhatsApp template keeps every component Meta lists (header,
-- body, footer, buttons) and its parameter_format (POSITIONAL or NAMED), so
-- a send's header, body and button parameters are checked against them
-- before the provider call. NULL components: a template known by its body
-- text only (the body is then its one component).
ALTER TABLE templates ADD COLUMN components jsonb;
ALTER TABLE templates ADD COLUMN parameter_format text NOT NULL DEFAULT '';
