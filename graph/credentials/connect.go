package credentials

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what connecting an account reads and writes; repo.Store is one.
type Store interface {
	Reader
	Account(ctx context.Context, workspaceID, channel, id string) (*repo.Account, error)
	UpsertAccountProvider(ctx context.Context, p *repo.AccountProvider) error
	DeleteAccountProvider(ctx context.Context, workspaceID, accountID string) (bool, error)
	ClearNeedsReauth(ctx context.Context, workspaceID, id string) (bool, error)
	SetAccountCheck(ctx context.Context, workspaceID, id, check string, c repo.AccountCheck) error
	AccountChecks(ctx context.Context, workspaceID string) (map[string]repo.AccountChecks, error)
}

// Refresher syncs a WhatsApp number's templates and onboarding soon;
// jobs.Client is one.
type Refresher interface {
	RefreshTemplates(ctx context.Context, workspaceID, accountID string) error
}

// Connections connects channel accounts to their providers through the
// GraphQL admin mutations. Only the admin caller of /graphql
// may use it; a token goes in and never comes out.
type Connections struct {
	Store Store
	Vault Vault
	Clock clock.Clock
	// Refresher, when set, syncs a connected WhatsApp number's templates.
	Refresher Refresher
	// Subscribers subscribe the app to a connected account's webhooks, by
	// channel (subscribe.go).
	Subscribers map[string]Subscriber
	// Instagram, when set, checks an Instagram account's credentials
	// against Meta before they are stored (graph/instagram.Connector).
	Instagram InstagramConnector
}

// InstagramConnector verifies (and completes) an Instagram account's
// credentials at connect.
type InstagramConnector interface {
	Verify(ctx context.Context, c *channels.Credentials) error
}

// Connection is what may be told of an account's provider connection:
// never a token.
type Connection struct {
	AccountID   string
	Channel     string
	Status      string
	Connected   bool
	NeedsReauth bool
	// ProviderAccountID is phone_number_id, ig_user_id or page_id.
	ProviderAccountID string
	WABAID            string
	Login             string
	UpdatedAt         time.Time
	// Instagram: the account and Page ids, whether an app secret of its
	// own is stored, and the token's issue and expiry times.
	IGUserID       string
	PageID         string
	AppSecretSet   bool
	TokenIssuedAt  *time.Time
	TokenExpiresAt *time.Time
	// Subscription is how the webhook subscription at the last connect
	// went (nil: none was made).
	Subscription *repo.AccountCheck
}

// admin returns the caller when it is the admin of /graphql: API keys,
// whatever their scopes, never touch credentials.
func admin(ctx context.Context) (*auth.Actor, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if !a.Admin {
		return nil, apierr.New(apierr.InsufficientScope, "Provider credentials are managed with the admin token only.")
	}
	return a, nil
}

// account returns a WhatsApp number or Instagram account of the caller's
// workspace, for the admin only.
func (c *Connections) account(ctx context.Context, id string) (*repo.Account, error) {
	a, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	acc, err := c.Store.Account(ctx, a.WorkspaceID, "", id)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && !credentialed(acc.Channel)) {
		return nil, apierr.New(apierr.InvalidRequest, "accountId %q names no WhatsApp number or Instagram account of this workspace.", id)
	}
	return acc, err
}

func credentialed(channel string) bool { return channel == "whatsapp" || channel == "instagram" }

// Get answers the connection of an account.
func (c *Connections) Get(ctx context.Context, accountID string) (*Connection, error) {
	acc, err := c.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return c.describe(ctx, acc)
}

// Connect seals and stores an account's credentials (replacing any), and
// connects a needs_reauth account again.
func (c *Connections) Connect(ctx context.Context, accountID string, in channels.Credentials) (*Connection, error) {
	acc, err := c.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return c.store(ctx, acc, in)
}

// Rotate replaces only the access token of a connected account.
func (c *Connections) Rotate(ctx context.Context, accountID, accessToken string) (*Connection, error) {
	acc, err := c.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	creds, err := c.Vault.Of(ctx, c.Store, acc.WorkspaceID, acc.ID)
	if err != nil {
		return nil, err
	}
	if creds == nil {
		return nil, apierr.New(apierr.InvalidRequest, "Account %s is not connected: connect it with connectChannelAccount first.", acc.ID)
	}
	creds.AccessToken = accessToken
	return c.store(ctx, acc, *creds)
}

// Disconnect removes an account's credentials: it sends with test keys
// only, and a needs_reauth about a token now gone is cleared.
func (c *Connections) Disconnect(ctx context.Context, accountID string) (*Connection, error) {
	acc, err := c.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if _, err := c.Store.DeleteAccountProvider(ctx, acc.WorkspaceID, acc.ID); err != nil {
		return nil, err
	}
	if err := c.reconnected(ctx, acc); err != nil {
		return nil, err
	}
	slog.Info("credentials: account disconnected", "workspace", acc.WorkspaceID, "account", acc.ID)
	return c.describe(ctx, acc)
}

// inputNames renames the fixture's fields in Check's reasons to the
// GraphQL arguments the caller of these mutations wrote.
var inputNames = strings.NewReplacer("provider of a", "input of a",
	"provider.access_token", "accessToken", "provider.phone_number_id", "input.phoneNumberId",
	"provider.waba_id", "input.wabaId", "provider.ig_user_id", "input.igUserId",
	"provider.page_id", "input.pageId", "provider.login", "input.login", "provider.app_secret", "input.appSecret",
	"phone_number_id", "phoneNumberId", "waba_id", "wabaId", "access_token", "accessToken")

// store seals, stores and reports new credentials.
func (c *Connections) store(ctx context.Context, acc *repo.Account, in channels.Credentials) (*Connection, error) {
	if err := c.verify(ctx, acc, &in); err != nil {
		return nil, err
	}
	row, err := c.Vault.Seal(acc.WorkspaceID, acc.ID, acc.Channel, in, c.Clock.Now())
	var bad *Invalid
	if errors.As(err, &bad) {
		return nil, apierr.New(apierr.InvalidRequest, "%s", inputNames.Replace(bad.Reason))
	}
	if err != nil {
		return nil, err
	}
	err = c.Store.UpsertAccountProvider(ctx, row)
	var taken *repo.ProviderIDTaken
	if errors.As(err, &taken) {
		// Only the admin token (the operator) gets here: naming the owner
		// tells it where to disconnect.
		return nil, apierr.New(apierr.InvalidRequest, "%s: %v; a provider id routes to one account of one workspace: "+
			"disconnect it there (disconnectChannelAccount) first. Nothing was connected.", idInput(taken, in), taken)
	}
	if err != nil {
		return nil, fmt.Errorf("credentials: store: %w", err)
	}
	if err := c.reconnected(ctx, acc); err != nil {
		return nil, err
	}
	if err := c.subscribe(ctx, acc, in); err != nil {
		return nil, err
	}
	slog.Info("credentials: account connected", "workspace", acc.WorkspaceID, "account", acc.ID,
		"channel", acc.Channel, "provider_key", row.ProviderKey)
	if acc.Channel == "whatsapp" && c.Refresher != nil {
		if err := c.Refresher.RefreshTemplates(ctx, acc.WorkspaceID, acc.ID); err != nil {
			slog.Warn("credentials: template sync not queued", "account", acc.ID, "err", err)
		}
	}
	return c.describe(ctx, acc)
}

// verify checks an Instagram account's credentials with Meta (after the
// local checks, so a malformed input is named as such first).
func (c *Connections) verify(ctx context.Context, acc *repo.Account, in *channels.Credentials) error {
	if acc.Channel != "instagram" || c.Instagram == nil {
		return nil
	}
	if err := Check(acc.Channel, in); err != nil {
		return apierr.New(apierr.InvalidRequest, "%s", inputNames.Replace(err.Error()))
	}
	return c.Instagram.Verify(ctx, in)
}

// reconnected clears needs_reauth: the token it was about changed.
func (c *Connections) reconnected(ctx context.Context, acc *repo.Account) error {
	cleared, err := c.Store.ClearNeedsReauth(ctx, acc.WorkspaceID, acc.ID)
	if cleared {
		acc.Status = "connected"
	}
	return err
}

// describe reads back what may be told of a connection.
func (c *Connections) describe(ctx context.Context, acc *repo.Account) (*Connection, error) {
	out := &Connection{AccountID: acc.ID, Channel: acc.Channel, Status: acc.Status, NeedsReauth: acc.Status == "needs_reauth"}
	p, err := c.Store.AccountProvider(ctx, acc.WorkspaceID, acc.ID)
	if errors.Is(err, repo.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	creds, err := c.Vault.Open(p)
	if err != nil {
		return nil, err
	}
	out.Connected, out.ProviderAccountID, out.WABAID, out.Login = true, p.ProviderKey, creds.WABAID, creds.Login
	out.UpdatedAt = p.UpdatedAt
	out.IGUserID, out.PageID, out.AppSecretSet = creds.IGUserID, creds.PageID, creds.AppSecret != ""
	out.TokenIssuedAt, out.TokenExpiresAt = creds.TokenIssuedAt, creds.TokenExpiresAt
	out.Subscription, err = c.subscription(ctx, acc)
	return out, err
}

// idInput is the input field of the id another account holds.
func idInput(taken *repo.ProviderIDTaken, in channels.Credentials) string {
	switch {
	case taken.Channel == "whatsapp":
		return "input.phoneNumberId"
	case taken.ID != "" && taken.ID == in.PageID:
		return "input.pageId"
	}
	return "input.igUserId"
}
