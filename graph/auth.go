package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"net"
	"regexp"
	"strings"

	"github.com/msgsvc/msgsvc/repo"
)

var secretPattern = regexp.MustCompile(`^svc_(live|test)_[0-9A-Za-z]{32}$`)

// HashSecret is how key secrets are stored: never the secret itself.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Authenticate resolves a key secret into the caller, applying every key and
// workspace state of spec "Authentication" in a fixed order. It returns the
// workspace too, for its rate limits.
func (r *Resolver) Authenticate(ctx context.Context, secret string, ip net.IP) (*Actor, *repo.Workspace, error) {
	invalid := apierr.New(apierr.InvalidAPIKey, "The API key is missing, malformed or unknown.")
	if !secretPattern.MatchString(secret) {
		return nil, nil, invalid
	}
	key, err := r.Store.APIKeyByHash(ctx, HashSecret(secret))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil, invalid
	}
	if err != nil {
		return nil, nil, err
	}
	now := r.now()
	// A rolled key in its grace period works like its successor; follow the
	// chain a few steps at most.
	for hops := 0; ; hops++ {
		if key.Revoked {
			return nil, nil, apierr.New(apierr.KeyRevoked, "This API key was revoked.")
		}
		if key.ExpiresAt != nil && !now.Before(*key.ExpiresAt) {
			return nil, nil, apierr.New(apierr.KeyExpired, "This API key expired at %s.", key.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		if key.RolledTo == nil {
			break
		}
		if key.GraceUntil == nil || !now.Before(*key.GraceUntil) || hops > 3 {
			return nil, nil, apierr.New(apierr.KeyRolled, "This API key was rolled and its grace period has ended; use the new secret.")
		}
		livemode := key.Livemode
		if key, err = r.Store.APIKey(ctx, key.WorkspaceID, *key.RolledTo); err != nil {
			return nil, nil, notFound(err, apierr.KeyRolled, "successor key", "")
		}
		key.Livemode = livemode
	}
	ws, err := r.Store.Workspace(ctx, key.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	if ws.Status != "active" {
		return nil, nil, apierr.New(apierr.AccountInactive, "This workspace is %s.", ws.Status)
	}
	if ws.Plan == "free" {
		return nil, nil, apierr.New(apierr.PlanUpgradeRequired, "API keys need a paid plan.")
	}
	if len(key.IPAllowlist) > 0 && !ipAllowed(key.IPAllowlist, ip) {
		return nil, nil, apierr.New(apierr.IPNotAllowed, "Requests from %s are outside this key's IP allowlist.", ip)
	}
	return &Actor{
		WorkspaceID: key.WorkspaceID, Livemode: key.Livemode, KeyID: key.ID, Scopes: key.Scopes,
		Channels: key.Channels, WebsiteIDs: key.WebsiteIDs, Version: key.Version,
	}, ws, nil
}

func ipAllowed(list []string, ip net.IP) bool {
	if ip == nil {
		return false
	}
	for _, entry := range list {
		if !strings.Contains(entry, "/") {
			if strings.Contains(entry, ":") {
				entry += "/128"
			} else {
				entry += "/32"
			}
		}
		if _, network, err := net.ParseCIDR(entry); err == nil && network.Contains(ip) {
			return true
		}
	}
	return false
}
