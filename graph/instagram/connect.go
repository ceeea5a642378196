package instagram

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Provider is what connecting and keeping an Instagram account needs of
// Meta; the channels/instagram adapter is one.
type Provider interface {
	Identify(ctx context.Context, c *channels.Credentials) (*igch.Identity, error)
	Subscribe(ctx context.Context, c *channels.Credentials) error
	RefreshToken(ctx context.Context, c *channels.Credentials) (*igch.Token, error)
}

// SubscriptionStore records the outcome of a subscription; repo.Store is
// one.
type SubscriptionStore interface {
	SetAccountCheck(ctx context.Context, workspaceID, accountID, check string, c repo.AccountCheck) error
}

// Connector checks an Instagram account's credentials against Meta at
// connect and subscribes its webhooks (graph/credentials calls it).
type Connector struct {
	Provider Provider
	Store    SubscriptionStore
	Clock    clock.Clock
}

// Verify asks Meta whose account the token opens and refuses credentials
// that name another: on Instagram Login /me's user_id must be ig_user_id;
// on Facebook Login the Page's instagram_business_account is the account,
// filled in as ig_user_id when only page_id was given (Meta's Instagram
// webhooks name the Instagram account on both logins, and msgsvc routes
// them by it). The token's issue time starts the refresh clock.
func (c *Connector) Verify(ctx context.Context, creds *channels.Credentials) error {
	id, err := c.Provider.Identify(ctx, creds)
	if err != nil {
		return connectRefusal(err)
	}
	switch {
	case creds.Login == igch.LoginFacebook && id.IGUserID == "":
		return apierr.New(apierr.InvalidRequest,
			"input.pageId: Facebook Page %s has no Instagram professional account linked (instagram_business_account is empty); link one in the Page's settings.", creds.PageID)
	case creds.Login == igch.LoginFacebook && creds.IGUserID == "":
		creds.IGUserID = id.IGUserID
	case id.IGUserID != creds.IGUserID && creds.Login == igch.LoginFacebook:
		return apierr.New(apierr.InvalidRequest,
			"input.igUserId: %s is not the Instagram account of Facebook Page %s (its instagram_business_account is %s).", creds.IGUserID, creds.PageID, id.IGUserID)
	case id.IGUserID != creds.IGUserID:
		return apierr.New(apierr.InvalidRequest,
			"input.igUserId: %s is not the account of this token (GET /me answers user_id %s, @%s).", creds.IGUserID, id.IGUserID, id.Username)
	}
	now := c.Clock.Now().UTC()
	creds.TokenIssuedAt, creds.TokenExpiresAt = &now, nil
	return nil
}

// connectRefusal is a provider failure at connect: a rejected token names
// the accessToken, anything else says Meta could not be asked.
func connectRefusal(err error) error {
	if igch.AuthFailed(err) {
		return apierr.New(apierr.InvalidRequest, "input.accessToken: Meta rejected the token (%s).", igch.Describe(err))
	}
	r := channels.AsRefusal(err)
	if r.Code == apierr.InvalidRequest || r.Code == apierr.ChannelRestricted {
		return apierr.New(r.Code, "Meta refused to say whose account this is: %s", igch.Describe(err))
	}
	return apierr.New(apierr.ChannelUnavailable, "Meta could not be asked whose account this token opens (%s); nothing was connected.", igch.Describe(err))
}

// Subscribe subscribes the connected account's webhooks and records the
// outcome on the account (GET /v1/channels shows it); a failure does not
// undo the connect.
func (c *Connector) Subscribe(ctx context.Context, workspaceID, accountID string, creds *channels.Credentials) {
	check := repo.AccountCheck{Status: "ok", At: c.Clock.Now()}
	if err := c.Provider.Subscribe(ctx, creds); err != nil {
		reason := igch.Describe(err)
		check.Status, check.Error = "failed", &reason
		slog.Warn("instagram: webhook subscription failed", "account", accountID, "err", reason)
	}
	if err := c.Store.SetAccountCheck(context.WithoutCancel(ctx), workspaceID, accountID, repo.CheckSubscription, check); err != nil {
		slog.Warn("instagram: webhook subscription outcome not stored", "account", accountID, "err", err)
	}
}
