package credentials

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// ChannelStore reads a workspace's websites, accounts and their provider
// checks; repo.Store is one.
type ChannelStore interface {
	Websites(ctx context.Context, s repo.Scope) ([]repo.Website, error)
	Accounts(ctx context.Context, s repo.Scope, channel string) ([]repo.Account, error)
	AccountChecks(ctx context.Context, workspaceID string) (map[string]repo.AccountChecks, error)
}

// Channels lists the channels a key reaches.
type Channels struct {
	Store ChannelStore
}

// List returns the websites and accounts within the caller's scope, by
// channel, each account with the last result of its provider checks.
func (c *Channels) List(ctx context.Context) (*model.Channels, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	s := a.Scope()
	websites, err := c.Store.Websites(ctx, repo.Scope{WorkspaceID: s.WorkspaceID, WebsiteIDs: s.WebsiteIDs})
	if err != nil {
		return nil, err
	}
	accounts, err := c.Store.Accounts(ctx, s, "")
	if err != nil {
		return nil, err
	}
	checks, err := c.Store.AccountChecks(ctx, s.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := &model.Channels{Websites: []*model.Website{}, Whatsapp: []*model.WhatsappNumber{},
		Instagram: []*model.InstagramAccount{}, Email: []*model.EmailAddress{}}
	for _, w := range websites {
		out.Websites = append(out.Websites, &model.Website{ID: w.ID, Name: w.Name, Domains: append([]string{}, w.Domains...)})
	}
	for _, acc := range accounts {
		switch acc.Channel {
		case "whatsapp":
			out.Whatsapp = append(out.Whatsapp, &model.WhatsappNumber{ID: acc.ID, WebsiteID: acc.WebsiteID,
				PhoneNumber: acc.PhoneNumber, Name: acc.Name, Status: acc.Status, MarketingMessages: acc.MarketingMessages,
				Subscription: view.AccountCheck(checks[acc.ID].Subscription), TemplateSync: view.AccountCheck(checks[acc.ID].TemplateSync)})
		case "instagram":
			out.Instagram = append(out.Instagram, &model.InstagramAccount{ID: acc.ID, WebsiteID: acc.WebsiteID,
				Username: acc.Username, Status: acc.Status, Subscription: view.AccountCheck(checks[acc.ID].Subscription)})
		case "email":
			out.Email = append(out.Email, &model.EmailAddress{ID: acc.ID, WebsiteID: acc.WebsiteID,
				Address: acc.Address, ForwardingActive: acc.ForwardingActive})
		}
	}
	return out, nil
}
