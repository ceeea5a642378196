-- A widget hub's check asks which visitors have something new since its
-- last check (repo.WebsiteChanges), not what every connected visitor has:
-- outbound live website messages still sent (not yet received by a
-- widget) by the time they were written, and live website chats closed by
-- the time they changed. These partial indexes hold exactly those rows, in
-- that time, so the check reads the recent ones and stops, however many
-- visitors are connected and however many chats they had.
CREATE INDEX messages_website_unreceived ON messages (created_at)
    WHERE channel = 'website' AND direction = 'outbound' AND status = 'sent' AND livemode;
CREATE INDEX conversations_website_closed ON conversations (updated_at)
    WHERE channel = 'website' AND status = 'closed' AND livemode;
