-- Instagram as Meta runs it (issue 27 part 5): the outcome of subscribing an
-- account's webhooks at connect (POST /{id}/subscribed_apps), shown on the
-- account in GET /v1/channels; removed with the account.
CREATE TABLE IF NOT EXISTS account_subscriptions (
    workspace_id text NOT NULL,
    account_id   text NOT NULL,
    status       text NOT NULL CHECK (status IN ('subscribed', 'failed')),
    fields       text[] NOT NULL DEFAULT '{}',
    error        text,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, account_id),
    FOREIGN KEY (workspace_id, account_id) REFERENCES channel_accounts (workspace_id, id) ON DELETE CASCADE
);
