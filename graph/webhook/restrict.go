package webhook

import (
	"context"
	"slices"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// within says whether an endpoint lies inside a key's restrictions: a key
// limited to some channels (or websites) manages only endpoints limited to
// some of those, never one that covers all of them. A restricted key that
// could change the URL or roll the secret of a wider endpoint would receive
// events it may not read.
func within(a *auth.Actor, e *repo.WebhookEndpoint) bool {
	inside := func(mine, theirs []string) bool {
		if len(mine) == 0 {
			return true
		}
		return len(theirs) > 0 && !slices.ContainsFunc(theirs, func(v string) bool { return !slices.Contains(mine, v) })
	}
	return inside(a.Channels, e.Channels) && inside(a.WebsiteIDs, e.WebsiteIDs)
}

// visible keeps the endpoints a key may manage.
func visible(a *auth.Actor, rows []repo.WebhookEndpoint) []repo.WebhookEndpoint {
	return slices.DeleteFunc(rows, func(e repo.WebhookEndpoint) bool { return !within(a, &e) })
}

// endpointOf reads an endpoint of the caller's workspace; one outside the
// key's restrictions is as unknown as one that does not exist (404).
func (s *Service) endpointOf(ctx context.Context, a *auth.Actor, id string) (*repo.WebhookEndpoint, error) {
	e, err := s.Store.WebhookEndpoint(ctx, a.WorkspaceID, id)
	if err == nil && !within(a, e) {
		err = repo.ErrNotFound
	}
	if err != nil {
		return nil, view.NotFound(err, apierr.EndpointNotFound, "webhook endpoint", id)
	}
	return e, nil
}

// lockEndpoint locks an endpoint of the caller's workspace for a change;
// one outside the key's restrictions is as unknown as one that does not
// exist (404).
func lockEndpoint(ctx context.Context, q repo.Queries, a *auth.Actor, id string) (*repo.WebhookEndpoint, error) {
	e, err := q.LockWebhookEndpoint(ctx, a.WorkspaceID, id)
	if err == nil && !within(a, e) {
		err = repo.ErrNotFound
	}
	if err != nil {
		return nil, view.NotFound(err, apierr.EndpointNotFound, "webhook endpoint", id)
	}
	return e, nil
}

// webhookChannels checks the channels asked for. A key limited to some
// channels may not name others, and its "all" is all it may use.
func webhookChannels(a *auth.Actor, in []string) ([]string, error) {
	out, err := checkedSet(in, func(c string) error {
		if !channels.Valid(c) {
			return apierr.New(apierr.InvalidRequest, "channels: %q is not one of website, whatsapp, instagram, email.", c)
		}
		return a.CheckChannel(c)
	})
	if err == nil && len(out) == 0 {
		out = append(out, a.Channels...)
	}
	return out, err
}

// webhookWebsites checks the websites asked for, as webhookChannels does.
func (s *Service) webhookWebsites(ctx context.Context, a *auth.Actor, in []string) ([]string, error) {
	var sites []repo.Website
	if len(in) > 0 {
		var err error
		if sites, err = s.Store.Websites(ctx, repo.Scope{WorkspaceID: a.WorkspaceID}); err != nil {
			return nil, err
		}
	}
	out, err := checkedSet(in, func(id string) error {
		if !slices.ContainsFunc(sites, func(w repo.Website) bool { return w.ID == id }) {
			return apierr.New(apierr.InvalidRequest, "website_ids: %s is not a website of this workspace.", id)
		}
		return a.CheckWebsite(id)
	})
	if err == nil && len(out) == 0 {
		out = append(out, a.WebsiteIDs...)
	}
	return out, err
}
