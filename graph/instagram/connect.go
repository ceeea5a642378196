package instagram

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
)

// Provider is what connecting an Instagram account needs of Meta; the
// channels/instagram adapter is one.
type Provider interface {
	Identify(ctx context.Context, c *channels.Credentials) (*igch.Identity, error)
}

// Connector checks an Instagram account's credentials against Meta at
// connect (graph/credentials calls it).
type Connector struct {
	Provider Provider
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
