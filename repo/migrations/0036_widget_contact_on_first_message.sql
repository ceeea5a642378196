-- A visitor gets its contact with its first message: a session that never
-- writes stores no contact. Until then the visitor keeps the name and the
-- verified email its session gave, for that contact.
ALTER TABLE widget_visitors ALTER COLUMN contact_id DROP NOT NULL;
ALTER TABLE widget_visitors ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE widget_visitors ADD COLUMN email text;
