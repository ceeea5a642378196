package instagram

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// When Instagram Login tokens are refreshed. Meta's long-lived Instagram
// User tokens live 60 days and can be refreshed once at least 24 hours
// old and not expired; a refreshed token lives 60 days from the refresh
// (https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token).
const (
	// RefreshMinAge is how old a token must be before Meta refreshes it.
	RefreshMinAge = 24 * time.Hour
	// RefreshBefore is how long before its expiry a token is refreshed:
	// ten days of daily passes to get through a Meta outage.
	RefreshBefore = 10 * 24 * time.Hour
)

// TokenStore is what the refresh reads and writes; repo.Store is one.
type TokenStore interface {
	AccountProviders(ctx context.Context, channel string) ([]repo.AccountProvider, error)
	ReplaceAccountProviderSealed(ctx context.Context, workspaceID, accountID, old, sealed string, at time.Time) (bool, error)
	SetAccountStatus(ctx context.Context, workspaceID, id, status string) (bool, error)
	ClearNeedsReauth(ctx context.Context, workspaceID, id string) (bool, error)
}

// TokenRefresher is what the refresh asks of Meta; the channels/instagram
// adapter is one.
type TokenRefresher interface {
	RefreshToken(ctx context.Context, c *channels.Credentials) (*igch.Token, error)
}

// Tokens keeps Instagram Login tokens alive.
type Tokens struct {
	Store    TokenStore
	Vault    credentials.Vault
	Provider TokenRefresher
	Clock    clock.Clock
}

// TokenDue says what a refresh pass does with an Instagram account's
// credentials at now: "refresh", "start" (no issue time known: it is
// recorded as now, and the token refreshed once 24 hours old, which tells
// its expiry), or "" (nothing: a Facebook Login Page token, which Meta does
// not expire this way, or a token too young or far from its expiry).
func TokenDue(c *channels.Credentials, now time.Time) string {
	switch {
	case c.Login == igch.LoginFacebook || c.AccessToken == "":
		return ""
	case c.TokenIssuedAt == nil:
		return "start"
	case now.Sub(*c.TokenIssuedAt) < RefreshMinAge:
		return ""
	case c.TokenExpiresAt == nil || !now.Before(c.TokenExpiresAt.Add(-RefreshBefore)):
		return "refresh"
	}
	return ""
}

// Refresh refreshes every Instagram Login token that is due (TokenDue)
// and stores the new token, sealed, with its expiry. A token Meta rejects
// (190, 401) makes its account needs_reauth; any other failure is logged
// and tried again on the next pass.
func (t *Tokens) Refresh(ctx context.Context) error {
	rows, err := t.Store.AccountProviders(ctx, "instagram")
	if err != nil {
		return err
	}
	var errs error
	for i := range rows {
		errs = errors.Join(errs, t.refreshOne(ctx, &rows[i]))
	}
	return errs
}

func (t *Tokens) refreshOne(ctx context.Context, row *repo.AccountProvider) error {
	creds, err := t.Vault.Open(row)
	if err != nil {
		return err
	}
	now := t.Clock.Now().UTC()
	switch TokenDue(creds, now) {
	case "":
		return nil
	case "start":
		creds.TokenIssuedAt = &now
		return t.store(ctx, row, creds, now)
	}
	tok, err := t.Provider.RefreshToken(ctx, creds)
	if igch.AuthFailed(err) {
		slog.Warn("instagram: Meta rejected the token on refresh; the account needs a new one",
			"workspace", row.WorkspaceID, "account", row.AccountID, "err", igch.Describe(err))
		_, err = t.Store.SetAccountStatus(ctx, row.WorkspaceID, row.AccountID, "needs_reauth")
		return err
	}
	if err != nil {
		slog.Warn("instagram: token refresh failed; tried again on the next pass",
			"workspace", row.WorkspaceID, "account", row.AccountID, "err", igch.Describe(err))
		return nil
	}
	expires := now.Add(tok.ExpiresIn)
	creds.AccessToken, creds.TokenIssuedAt, creds.TokenExpiresAt = tok.AccessToken, &now, &expires
	if err := t.store(ctx, row, creds, now); err != nil {
		return err
	}
	// The token opened: a needs_reauth about it no longer holds.
	if _, err := t.Store.ClearNeedsReauth(ctx, row.WorkspaceID, row.AccountID); err != nil {
		return err
	}
	slog.Info("instagram: token refreshed", "workspace", row.WorkspaceID, "account", row.AccountID, "expires_at", expires)
	return nil
}

// store seals creds in row's place, unless the account was connected
// again meanwhile (its new credentials win).
func (t *Tokens) store(ctx context.Context, row *repo.AccountProvider, creds *channels.Credentials, now time.Time) error {
	sealed, err := t.Vault.Seal(row.WorkspaceID, row.AccountID, row.Channel, *creds, now)
	if err != nil {
		return err
	}
	replaced, err := t.Store.ReplaceAccountProviderSealed(ctx, row.WorkspaceID, row.AccountID, row.Sealed, sealed.Sealed, now)
	if err == nil && !replaced {
		slog.Info("instagram: account connected again during its token refresh; the new credentials are kept", "account", row.AccountID)
	}
	return err
}
