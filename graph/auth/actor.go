// Package auth is who is calling: API key resolution in the order of the
// spec, the caller (Actor) a request carries, and the key's restrictions.
package auth

import (
	"context"
	"slices"

	"github.com/msgsvc/msgsvc/internal/apierr"
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
	// Admin is the holder of the admin token on /graphql (the internal
	// dashboards), never an API key.
	Admin bool
	// MemberID and Role are the signed-in person on /graphql (the app's
	// session cookie); empty for API keys and the admin token.
	MemberID string
	Role     string
	// SessionID is the signed-in person's session (graph/member).
	SessionID string
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

// From returns the caller or fails: resolvers never run without one.
func From(ctx context.Context) (*Actor, error) {
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

// AllowsEvent says whether the key may read an event of a channel and a
// website (nil when the event has none); see EventVisible.
func (a *Actor) AllowsEvent(channel, websiteID *string) bool {
	return EventVisible(a.Channels, a.WebsiteIDs, channel, websiteID)
}

// EventVisible says whether an event of a channel and a website (nil when
// the event has none) is inside limits to some channels and websites (empty
// means all), a key's or a webhook endpoint's. Contact events have neither:
// they describe contacts, which belong to the whole workspace, so they are
// visible exactly where contacts may be used (CheckContacts), never under a
// limit to some websites.
func EventVisible(channels, websiteIDs []string, channel, websiteID *string) bool {
	inside := func(limit []string, v *string) bool {
		return len(limit) == 0 || (v != nil && slices.Contains(limit, *v))
	}
	return (channel == nil || inside(channels, channel)) && inside(websiteIDs, websiteID)
}

// CheckContacts answers 403 for a key that may not use contacts: they
// belong to the whole workspace, so a key limited to some websites may not.
func (a *Actor) CheckContacts() error {
	if len(a.WebsiteIDs) > 0 {
		return apierr.New(apierr.ContactsNeedAllWebsites, "Contacts need a key that is not limited to some websites.")
	}
	return nil
}

// CheckChannel answers 403 for a channel outside the key.
func (a *Actor) CheckChannel(channel string) error {
	if !a.AllowsChannel(channel) {
		return apierr.New(apierr.ChannelNotAllowed, "This key may not use the %s channel.", channel)
	}
	return nil
}

// CheckWebsite answers 403 for a website outside the key.
func (a *Actor) CheckWebsite(id string) error {
	if !a.AllowsWebsite(id) {
		return apierr.New(apierr.WebsiteNotAllowed, "This key may not use website %s.", id)
	}
	return nil
}

// ForContacts returns the caller if it may use contacts (CheckContacts).
func ForContacts(ctx context.Context) (*Actor, error) {
	a, err := From(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.CheckContacts(); err != nil {
		return nil, err
	}
	return a, nil
}
