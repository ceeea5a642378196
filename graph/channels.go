package graph

import (
	"context"
	"encoding/json"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

func (r *Resolver) listChannels(ctx context.Context) (*model.Channels, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	s := a.Scope()
	websites, err := r.Store.Websites(ctx, repo.Scope{WorkspaceID: s.WorkspaceID, WebsiteIDs: s.WebsiteIDs})
	if err != nil {
		return nil, err
	}
	accounts, err := r.Store.Accounts(ctx, s, "")
	if err != nil {
		return nil, err
	}
	checks, err := r.Store.AccountChecks(ctx, s.WorkspaceID)
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
				Subscription: accountCheck(checks[acc.ID].Subscription), TemplateSync: accountCheck(checks[acc.ID].TemplateSync)})
		case "instagram":
			out.Instagram = append(out.Instagram, &model.InstagramAccount{ID: acc.ID, WebsiteID: acc.WebsiteID,
				Username: acc.Username, Status: acc.Status, Subscription: accountCheck(checks[acc.ID].Subscription)})
		case "email":
			out.Email = append(out.Email, &model.EmailAddress{ID: acc.ID, WebsiteID: acc.WebsiteID,
				Address: acc.Address, ForwardingActive: acc.ForwardingActive})
		}
	}
	return out, nil
}

func (r *Resolver) usage(ctx context.Context) (*model.Usage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := r.Store.Workspace(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	now := clock.Clock(r.Clock).Now()
	used, err := r.Store.MessagesUsed(ctx, a.WorkspaceID, a.Livemode, send.Period(now))
	if err != nil {
		return nil, err
	}
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return &model.Usage{Period: send.Period(now), MessagesUsed: used, MessagesLimit: ws.MessagesLimit,
		ResetsAt: model.NewTimestamp(first.AddDate(0, 1, 0))}, nil
}

func (r *Resolver) getEvent(ctx context.Context, id string) (*model.Event, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	e, err := r.Store.Event(ctx, a.Scope(), id)
	// An event outside the key, or past retention (whether or not the purge
	// has run yet), is not found.
	if err == nil && (!a.AllowsEvent(e.Channel, e.WebsiteID) || r.WebhookService().Expired(e.CreatedAt)) {
		err = repo.ErrNotFound
	}
	if err != nil {
		return nil, view.NotFound(err, apierr.EventNotFound, "event", id)
	}
	var out model.Event
	return &out, json.Unmarshal(e.Envelope, &out)
}
