package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// ValidSecret says whether a string has the shape of a key secret:
// svc_live_ or svc_test_ and 32 ASCII letters or digits. Every request
// asks, so it reads the bytes itself rather than run a regular expression.
func ValidSecret(secret string) bool {
	rest, ok := strings.CutPrefix(secret, "svc_live_")
	if !ok {
		rest, ok = strings.CutPrefix(secret, "svc_test_")
	}
	if !ok || len(rest) != 32 {
		return false
	}
	for i := range len(rest) {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// HashSecret is how key secrets are stored: never the secret itself.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// KeyStore reads the keys and workspaces authentication needs.
type KeyStore interface {
	APIKeyByHash(ctx context.Context, hash string) (*repo.APIKey, error)
	APIKey(ctx context.Context, workspaceID, id string) (*repo.APIKey, error)
	Workspace(ctx context.Context, id string) (*repo.Workspace, error)
}

// Authenticator resolves API keys.
type Authenticator struct {
	Keys  KeyStore
	Clock clock.Clock
}

// Authenticate resolves a key secret into the caller, applying every key and
// workspace state of spec "Authentication" in a fixed order. It returns the
// workspace too, for its rate limits. A known key it refuses (revoked,
// expired, rolled, its workspace or address refused) comes back with the
// error as an Actor with only its workspace, mode and id, for the request
// log: never one to act as.
func (r *Authenticator) Authenticate(ctx context.Context, secret string, ip net.IP) (*Actor, *repo.Workspace, error) {
	invalid := apierr.New(apierr.InvalidAPIKey, "The API key is missing, malformed or unknown.")
	if !ValidSecret(secret) {
		return nil, nil, invalid
	}
	key, err := r.Keys.APIKeyByHash(ctx, HashSecret(secret))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil, invalid
	}
	if err != nil {
		return nil, nil, fmt.Errorf("auth: key: %w", err)
	}
	now := r.Clock.Now()
	presented := refused(key)
	// A rolled key in its grace period works like its successor; follow the
	// chain a few steps at most.
	for hops := 0; ; hops++ {
		if key.Revoked {
			return presented, nil, apierr.New(apierr.KeyRevoked, "This API key was revoked.")
		}
		if key.ExpiresAt != nil && !now.Before(*key.ExpiresAt) {
			return presented, nil, apierr.New(apierr.KeyExpired, "This API key expired at %s.", key.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		if key.RolledTo == nil {
			break
		}
		if key.GraceUntil == nil || !now.Before(*key.GraceUntil) || hops > 3 {
			return presented, nil, apierr.New(apierr.KeyRolled, "This API key was rolled and its grace period has ended; use the new secret.")
		}
		livemode := key.Livemode
		if key, err = r.Keys.APIKey(ctx, key.WorkspaceID, *key.RolledTo); err != nil {
			if errors.Is(err, repo.ErrNotFound) {
				return presented, nil, apierr.New(apierr.KeyRolled, "No successor key .")
			}
			return nil, nil, fmt.Errorf("auth: successor key: %w", err)
		}
		key.Livemode = livemode
	}
	ws, err := r.Keys.Workspace(ctx, key.WorkspaceID)
	if err != nil {
		return nil, nil, fmt.Errorf("auth: workspace: %w", err)
	}
	if ws.Status != "active" {
		return refused(key), nil, apierr.New(apierr.AccountInactive, "This workspace is %s.", ws.Status)
	}
	if ws.Plan == "free" {
		return refused(key), nil, apierr.New(apierr.PlanUpgradeRequired, "API keys need a paid plan.")
	}
	if len(key.IPAllowlist) > 0 && !ipAllowed(key.IPAllowlist, ip) {
		return refused(key), nil, apierr.New(apierr.IPNotAllowed, "Requests from %s are outside this key's IP allowlist.", ip)
	}
	return &Actor{
		WorkspaceID: key.WorkspaceID, Livemode: key.Livemode, KeyID: key.ID, Scopes: key.Scopes,
		Channels: key.Channels, WebsiteIDs: key.WebsiteIDs, Version: key.Version,
	}, ws, nil
}

// refused is the Actor returned with the refusal of a known key.
func refused(k *repo.APIKey) *Actor {
	return &Actor{WorkspaceID: k.WorkspaceID, Livemode: k.Livemode, KeyID: k.ID}
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
