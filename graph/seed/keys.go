package seed

import (
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// keys writes the API keys, checked against what the workspace has.
func (s *workspaceSeed) keys() error {
	keyIDs := map[string]bool{}
	for _, k := range s.w.Keys {
		keyIDs[k.ID] = true
	}
	for i, k := range s.w.Keys {
		p := fmt.Sprintf(".keys[%d]", i)
		switch {
		case !strings.HasPrefix(k.ID, "key_"):
			return s.bad(p+".id", "must start with key_")
		case !auth.ValidSecret(k.Secret):
			return s.bad(p+".secret", "must be svc_live_ or svc_test_ and 32 base62 characters")
		case k.RolledTo != nil && !keyIDs[*k.RolledTo]:
			return s.bad(p+".rolled_to", "names no key of this workspace")
		case k.RolledTo != nil && k.GraceUntil == nil:
			return s.bad(p+".grace_until", "is required with rolled_to")
		case k.Version != nil && *k.Version != auth.ServedVersion:
			return s.bad(p+".version", "must be %s", auth.ServedVersion)
		}
		for j, scope := range k.Scopes {
			if !auth.ValidScope(scope) {
				return s.bad(fmt.Sprintf("%s.scopes[%d]", p, j), "is not a scope")
			}
		}
		for j, c := range k.Channels {
			if !channels.Valid(c) {
				return s.bad(fmt.Sprintf("%s.channels[%d]", p, j), "is not a channel")
			}
		}
		for j, site := range k.WebsiteIDs {
			if !s.websites[site] {
				return s.bad(fmt.Sprintf("%s.website_ids[%d]", p, j), "names no website of this workspace")
			}
		}
		for j, cidr := range k.IPAllowlist {
			if !auth.ValidAllowlistEntry(cidr) {
				return s.bad(fmt.Sprintf("%s.ip_allowlist[%d]", p, j), "must be an IP address or CIDR range")
			}
		}
		scopes := k.Scopes
		if scopes == nil {
			scopes = []string{"*"}
		}
		key := &repo.APIKey{ID: k.ID, WorkspaceID: s.w.ID, SecretHash: auth.HashSecret(k.Secret),
			Livemode: strings.HasPrefix(k.Secret, "svc_live_"), Scopes: scopes, Channels: view.OrEmpty(k.Channels),
			WebsiteIDs: view.OrEmpty(k.WebsiteIDs), IPAllowlist: view.OrEmpty(k.IPAllowlist), Revoked: k.Revoked,
			RolledTo: k.RolledTo, Version: orDefault(k.Version, auth.ServedVersion)}
		if k.ExpiresAt != nil {
			key.ExpiresAt = &k.ExpiresAt.Time
		}
		if k.GraceUntil != nil {
			key.GraceUntil = &k.GraceUntil.Time
		}
		if err := s.q.UpsertAPIKey(s.ctx, key); err != nil {
			return s.wrap(p+".secret", err)
		}
		if err := s.q.SetAPIKeyLabel(s.ctx, k.ID, k.ID, k.Secret[len(k.Secret)-4:]); err != nil {
			return s.wrap(p+".secret", err)
		}
	}
	return nil
}
