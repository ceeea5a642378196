package repo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// AccountCheck is how the last run of a provider check of an account went:
// the webhook subscription at connect, the template sync. Status is "ok" or
// "failed"; Error says why it failed, without secrets.
type AccountCheck struct {
	Status string    `json:"status"`
	Error  *string   `json:"error"`
	At     time.Time `json:"at"`
}

// The checks an account keeps, each a jsonb column of channel_accounts.
const (
	CheckSubscription = "subscription"
	CheckTemplateSync = "template_sync"
	// CheckReauth is why the account last became needs_reauth.
	CheckReauth = "reauth"
)

// AccountChecks are an account's checks (nil: never run).
type AccountChecks struct {
	Subscription *AccountCheck
	TemplateSync *AccountCheck
	Reauth       *AccountCheck
}

// NeedsReauth marks an account needs_reauth and records why (the
// provider's code and text).
func (q Queries) NeedsReauth(ctx context.Context, workspaceID, id, reason string, at time.Time) error {
	if _, err := q.SetAccountStatus(ctx, workspaceID, id, "needs_reauth"); err != nil {
		return err
	}
	return q.SetAccountCheck(ctx, workspaceID, id, CheckReauth, AccountCheck{Status: "failed", Error: &reason, At: at})
}

// SetAccountCheck records how a check of an account went.
func (q Queries) SetAccountCheck(ctx context.Context, workspaceID, id, check string, c AccountCheck) error {
	if check != CheckSubscription && check != CheckTemplateSync && check != CheckReauth {
		return fmt.Errorf("repo: unknown account check %q", check)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE channel_accounts SET `+check+` = $3 WHERE workspace_id = $1 AND id = $2`,
		workspaceID, id, JSONB(raw))
	return err
}

// AccountChecks returns the checks of a workspace's accounts by account id;
// an account with none is left out.
func (q Queries) AccountChecks(ctx context.Context, workspaceID string) (map[string]AccountChecks, error) {
	var rows []struct {
		ID           string `db:"id"`
		Subscription JSONB  `db:"subscription"`
		TemplateSync JSONB  `db:"template_sync"`
		Reauth       JSONB  `db:"reauth"`
	}
	if err := q.selectRows(ctx, &rows, `SELECT id, subscription, template_sync, reauth FROM channel_accounts
		WHERE workspace_id = $1 AND (subscription IS NOT NULL OR template_sync IS NOT NULL OR reauth IS NOT NULL)`, workspaceID); err != nil {
		return nil, err
	}
	out := make(map[string]AccountChecks, len(rows))
	for _, r := range rows {
		var c AccountChecks
		var err error
		if c.Subscription, err = decodeCheck(r.Subscription); err == nil {
			c.TemplateSync, err = decodeCheck(r.TemplateSync)
		}
		if err == nil {
			c.Reauth, err = decodeCheck(r.Reauth)
		}
		if err != nil {
			return nil, fmt.Errorf("repo: account %s checks: %w", r.ID, err)
		}
		out[r.ID] = c
	}
	return out, nil
}

func decodeCheck(raw JSONB) (*AccountCheck, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c AccountCheck
	return &c, json.Unmarshal(raw, &c)
}
