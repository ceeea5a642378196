package conversation

import (
	"context"
	"errors"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Accounts reads channel accounts; a transaction's repo.Queries is one.
type Accounts interface {
	Account(ctx context.Context, workspaceID, channel, id string) (*repo.Account, error)
	Accounts(ctx context.Context, s repo.Scope, channel string) ([]repo.Account, error)
	EmailDomain(ctx context.Context, workspaceID, domain string) (*repo.EmailDomain, error)
}

// ChannelAccount picks the channel account a message runs on: the one a
// field names (404-free: an unknown id is invalid_request, one on a website
// outside the key website_not_allowed), or else the oldest of the channel
// that the key may use.
func ChannelAccount(ctx context.Context, q Accounts, a *auth.Actor, channel, field string, id *string) (*repo.Account, error) {
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
