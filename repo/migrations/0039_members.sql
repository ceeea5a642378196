-- The people of a workspace (app.md 1): the agents table holds every
-- member, each with a role; the existing rows are agents (ids kept, so
-- conversations' assigned_agent_id keeps naming them). A person's email is
-- unique across the installation, in any case: of addresses used twice
-- before, the row with the smallest id keeps it and the others are
-- emptied (a member without an address cannot sign in).
ALTER TABLE agents ADD COLUMN role text NOT NULL DEFAULT 'agent'
    CHECK (role IN ('owner', 'admin', 'developer', 'agent'));
UPDATE agents a SET email = '' WHERE email <> '' AND EXISTS (
    SELECT 1 FROM agents b WHERE lower(b.email) = lower(a.email) AND b.id < a.id);
CREATE UNIQUE INDEX agents_email_key ON agents (lower(email)) WHERE email <> '';

-- Emailed codes: sign-in (purpose sign_in) and step-up (create_key, …).
-- Only an HMAC of the code is kept. A code asked for an address that is
-- no member is stored too (member_id NULL, never accepted), so the hourly
-- limit answers the same for members and strangers.
CREATE TABLE member_codes (
    id          text PRIMARY KEY,
    email       text NOT NULL,
    purpose     text NOT NULL,
    member_id   text REFERENCES agents (id) ON DELETE CASCADE,
    code_hash   text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    wrong_tries integer NOT NULL DEFAULT 0,
    used_at     timestamptz
);
CREATE INDEX member_codes_email ON member_codes (email, purpose, created_at);

-- Sessions: only the SHA-256 of the cookie's token is kept. last_seen_at
-- is written at most once a minute (idle renewal); expires_at is the
-- absolute end.
CREATE TABLE member_sessions (
    id           text PRIMARY KEY,
    token_hash   text NOT NULL UNIQUE,
    member_id    text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    user_agent   text NOT NULL DEFAULT ''
);
CREATE INDEX member_sessions_member ON member_sessions (member_id);

-- Step-ups: when a member last verified a code for a purpose.
CREATE TABLE member_step_ups (
    member_id   text NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    purpose     text NOT NULL,
    verified_at timestamptz NOT NULL,
    PRIMARY KEY (member_id, purpose)
);
