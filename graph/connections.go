package graph

import (
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

func (r *Resolver) connections() *credentials.Connections {
	// The live adapters subscribe the app to a connected account's
	// webhooks; the Instagram one also verifies its credentials.
	subscribers := map[string]credentials.Subscriber{}
	for _, ch := range []string{"whatsapp", "instagram"} {
		if sub, ok := r.Adapters[ch].(credentials.Subscriber); ok {
			subscribers[ch] = sub
		}
	}
	c := &credentials.Connections{Store: r.Store, Vault: credentials.Vault{Key: r.Seal}, Clock: r.Clock, Refresher: r.Refresher,
		Subscribers: subscribers}
	if p, ok := r.Adapters["instagram"].(instagram.Provider); ok {
		c.Instagram = &instagram.Connector{Provider: p, Clock: r.Clock}
	}
	return c
}

// providerCredentials are the credentials of a GraphQL input.
func providerCredentials(in model.ProviderCredentialsInput) channels.Credentials {
	return channels.Credentials{PhoneNumberID: deref(in.PhoneNumberID), WABAID: deref(in.WabaID), Login: deref(in.Login),
		IGUserID: deref(in.IgUserID), PageID: deref(in.PageID), AccessToken: in.AccessToken, AppSecret: deref(in.AppSecret)}
}

// connectionView is a connection as GraphQL shows it.
func connectionView(c *credentials.Connection, err error) (*model.ChannelConnection, error) {
	if err != nil {
		return nil, err
	}
	out := &model.ChannelConnection{AccountID: c.AccountID, Channel: c.Channel, Status: c.Status,
		Connected: c.Connected, NeedsReauth: c.NeedsReauth}
	if c.Connected {
		out.ProviderAccountID = nonEmpty(c.ProviderAccountID)
		out.WabaID, out.Login = nonEmpty(c.WABAID), nonEmpty(c.Login)
		at := model.NewTimestamp(c.UpdatedAt)
		out.UpdatedAt = &at
		out.IgUserID, out.PageID, out.AppSecretSet = nonEmpty(c.IGUserID), nonEmpty(c.PageID), c.AppSecretSet
		out.TokenIssuedAt, out.TokenExpiresAt = model.TimestampPtr(c.TokenIssuedAt), model.TimestampPtr(c.TokenExpiresAt)
		out.Subscription = accountCheck(c.Subscription)
	}
	return out, nil
}

// accountCheck is a recorded provider check as the API shows it.
func accountCheck(c *repo.AccountCheck) *model.AccountCheck {
	if c == nil {
		return nil
	}
	return &model.AccountCheck{Status: c.Status, Error: c.Error, At: model.NewTimestamp(c.At)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
