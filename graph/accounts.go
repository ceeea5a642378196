package graph

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/auth"

	"github.com/msgsvc/msgsvc/repo"
)

// identityColumn is the contact column a channel's customer is known by.
var identityColumn = map[string]string{
	"website": "external_id", "whatsapp": "phone", "instagram": "instagram_user_id", "email": "email",
}

// channelAccount picks the channel account a message runs on: the one a
// field names (404-free: an unknown id is invalid_request, one on a website
// outside the key website_not_allowed), or else the oldest of the channel
// that the key may use.
func channelAccount(ctx context.Context, q repo.Queries, a *auth.Actor, channel, field string, id *string) (*repo.Account, error) {
	if id != nil {
		acc, err := q.Account(ctx, a.WorkspaceID, channel, *id)
		if errors.Is(err, repo.ErrNotFound) {
			return nil, apierr.New(apierr.InvalidRequest, "%s %s names no %s account of this workspace.", field, *id, channel)
		}
		if err != nil {
			return nil, err
		}
		return acc, a.CheckWebsite(acc.WebsiteID)
	}
	usable, err := q.Accounts(ctx, a.Scope(), channel)
	if err != nil || len(usable) > 0 {
		return firstOrNil(usable), err
	}
	all, err := q.Accounts(ctx, repo.Scope{WorkspaceID: a.WorkspaceID}, channel)
	if err != nil {
		return nil, err
	}
	if len(all) > 0 {
		return nil, apierr.New(apierr.WebsiteNotAllowed, "This key may not use any website with a %s account.", channel)
	}
	return nil, apierr.New(apierr.InvalidRequest, "This workspace has no %s account.", channel)
}

func firstOrNil[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// channelContact is a new contact known by its identity on a channel: a
// phone on WhatsApp, an address on email, an Instagram user id, or a
// website visitor id.
func channelContact(s repo.Scope, channel, identity, name, source string, now time.Time) *repo.Contact {
	c := &repo.Contact{ID: repo.NewID("ct_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
		Name: name, FirstSeenChannel: &channel, Source: source, CreatedAt: now, UpdatedAt: now}
	switch identityColumn[channel] {
	case "external_id":
		c.ExternalID = &identity
	case "phone":
		c.Phone = &identity
	case "instagram_user_id":
		c.InstagramUserID = &identity
	case "email":
		c.Email = &identity
	}
	return c
}
