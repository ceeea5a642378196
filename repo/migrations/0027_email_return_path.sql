-- Email return path: the domain of a sending domain's envelope sender
-- (bounces+{msg_id}@{return_path_domain}), whose MX points at msgsvc so that
-- bounces reach it. Empty: the service-wide default (MSGSVC_SMTP_RETURN_PATH_DOMAIN).
ALTER TABLE email_domains ADD COLUMN return_path_domain text NOT NULL DEFAULT '';
CREATE INDEX email_domains_return_path ON email_domains (return_path_domain) WHERE return_path_domain <> '';
