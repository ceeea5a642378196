-- A customer who stopped WhatsApp marketing messages (user_preferences
-- stop, error 131050): marketing sends and MARKETING templates are refused,
-- everything else goes out (opt_out_whatsapp stops everything).
ALTER TABLE contacts ADD COLUMN marketing_opt_out_whatsapp boolean NOT NULL DEFAULT false;
