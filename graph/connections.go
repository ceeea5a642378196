package graph

import (
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
)

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
		out.Subscription = view.AccountCheck(c.Subscription)
	}
	return out, nil
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
