package graph

import (
	"context"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"slices"

	"github.com/msgsvc/msgsvc/repo"
)

// Actor is who is calling: a workspace, a mode, and the key's restrictions.
type Actor struct {
	WorkspaceID string
	Livemode    bool
	KeyID       string
	Scopes      []string
	Channels    []string
	WebsiteIDs  []string
	Version     string
}

type actorKey struct{}

// WithActor returns a context carrying the caller.
func WithActor(ctx context.Context, a *Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the caller of a request, or nil.
func ActorFrom(ctx context.Context) *Actor {
	a, _ := ctx.Value(actorKey{}).(*Actor)
	return a
}

// actor returns the caller or fails: resolvers never run without one.
func actor(ctx context.Context) (*Actor, error) {
	if a := ActorFrom(ctx); a != nil {
		return a, nil
	}
	return nil, apierr.New(apierr.InvalidAPIKey, "No API key was given.")
}

// Scope is the repo visibility of the caller.
func (a *Actor) Scope() repo.Scope {
	return repo.Scope{WorkspaceID: a.WorkspaceID, Livemode: a.Livemode, Channels: a.Channels, WebsiteIDs: a.WebsiteIDs}
}

// HasScope says whether the key carries a permission.
func (a *Actor) HasScope(scope string) bool {
	return slices.Contains(a.Scopes, "*") || slices.Contains(a.Scopes, scope)
}

// AllowsChannel says whether the key may use a channel.
func (a *Actor) AllowsChannel(channel string) bool {
	return len(a.Channels) == 0 || slices.Contains(a.Channels, channel)
}

// AllowsWebsite says whether the key may use a website.
func (a *Actor) AllowsWebsite(id string) bool {
	return len(a.WebsiteIDs) == 0 || slices.Contains(a.WebsiteIDs, id)
}

// checkChannel answers 403 for a channel outside the key.
func (a *Actor) checkChannel(channel string) error {
	if !a.AllowsChannel(channel) {
		return apierr.New(apierr.ChannelNotAllowed, "This key may not use the %s channel.", channel)
	}
	return nil
}

// checkWebsite answers 403 for a website outside the key.
func (a *Actor) checkWebsite(id string) error {
	if !a.AllowsWebsite(id) {
		return apierr.New(apierr.WebsiteNotAllowed, "This key may not use website %s.", id)
	}
	return nil
}
