package auth

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

func TestRestrictions(t *testing.T) {
	limited := &Actor{Scopes: []string{"messages:read"}, Channels: []string{"whatsapp"}, WebsiteIDs: []string{"web_1"}}
	open := &Actor{Scopes: []string{"*"}}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"limited key has its scope", limited.HasScope("messages:read"), true},
		{"limited key lacks another scope", limited.HasScope("messages:write"), false},
		{"* has every scope", open.HasScope("webhooks:manage"), true},
		{"limited key allows its channel", limited.AllowsChannel("whatsapp"), true},
		{"limited key refuses another channel", limited.AllowsChannel("email"), false},
		{"unlimited key allows any channel", open.AllowsChannel("email"), true},
		{"limited key allows its website", limited.AllowsWebsite("web_1"), true},
		{"limited key refuses another website", limited.AllowsWebsite("web_2"), false},
		{"ip in a range", ipAllowed([]string{"10.0.0.0/8"}, net.ParseIP("10.1.2.3")), true},
		{"ip outside a range", ipAllowed([]string{"10.0.0.0/8"}, net.ParseIP("11.1.2.3")), false},
		{"bare ipv4", ipAllowed([]string{"192.0.2.1"}, net.ParseIP("192.0.2.1")), true},
		{"bare ipv6", ipAllowed([]string{"2001:db8::1"}, net.ParseIP("2001:db8::1")), true},
		{"bare ipv4 is one address", ipAllowed([]string{"192.0.2.1"}, net.ParseIP("192.0.2.2")), false},
		{"no client address", ipAllowed([]string{"0.0.0.0/0"}, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
	codeOf := func(err error) apierr.Code {
		if e, ok := apierr.As(err); ok {
			return e.Code
		}
		return ""
	}
	if got, want := codeOf(limited.CheckChannel("email")), apierr.ChannelNotAllowed; got != want {
		t.Errorf("CheckChannel: %q, want %q", got, want)
	}
	if got, want := codeOf(limited.CheckWebsite("web_2")), apierr.WebsiteNotAllowed; got != want {
		t.Errorf("CheckWebsite: %q, want %q", got, want)
	}
}

// Contact events belong to no channel and no website: a key sees them
// exactly when it may use the contacts they describe.
func TestEventVisibility(t *testing.T) {
	whatsapp, email, web1, web2 := "whatsapp", "email", "web_1", "web_2"
	byWebsite := &Actor{Scopes: []string{"*"}, WebsiteIDs: []string{"web_1"}}
	byChannel := &Actor{Scopes: []string{"*"}, Channels: []string{"whatsapp"}}
	open := &Actor{Scopes: []string{"*"}}
	tests := []struct {
		name             string
		a                *Actor
		channel, website *string
		want             bool
	}{
		{"open key, contact event", open, nil, nil, true},
		{"website-limited key, contact event", byWebsite, nil, nil, false},
		{"channel-limited key, contact event", byChannel, nil, nil, true},
		{"website-limited key, its website", byWebsite, &whatsapp, &web1, true},
		{"website-limited key, another website", byWebsite, &whatsapp, &web2, false},
		{"channel-limited key, its channel", byChannel, &whatsapp, &web2, true},
		{"channel-limited key, another channel", byChannel, &email, &web1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.AllowsEvent(tt.channel, tt.website); got != tt.want {
				t.Errorf("AllowsEvent = %v, want %v", got, tt.want)
			}
			if tt.channel == nil {
				_, err := ForContacts(WithActor(context.Background(), tt.a))
				if (err == nil) != tt.want {
					t.Errorf("ForContacts = %v, but a contact event is visible: %v", err, tt.want)
				}
			}
		})
	}
}

// keys is a KeyStore of fixed keys and workspaces.
type keys struct {
	byID       map[string]*repo.APIKey
	workspaces map[string]*repo.Workspace
}

func (k keys) APIKeyByHash(_ context.Context, hash string) (*repo.APIKey, error) {
	for _, key := range k.byID {
		if key.SecretHash == hash {
			c := *key
			return &c, nil
		}
	}
	return nil, repo.ErrNotFound
}

func (k keys) APIKey(_ context.Context, _, id string) (*repo.APIKey, error) {
	if key, ok := k.byID[id]; ok {
		c := *key
		return &c, nil
	}
	return nil, repo.ErrNotFound
}

func (k keys) Workspace(_ context.Context, id string) (*repo.Workspace, error) {
	if w, ok := k.workspaces[id]; ok {
		return w, nil
	}
	return nil, repo.ErrNotFound
}

func TestAuthenticate(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	secret := func(c byte) string {
		b := []byte("svc_test_00000000000000000000000000000000")
		b[len(b)-1] = c
		return string(b)
	}
	next := "key_next"
	store := keys{byID: map[string]*repo.APIKey{}, workspaces: map[string]*repo.Workspace{
		"ws_a": {ID: "ws_a", Plan: "pro", Status: "active"}, "ws_free": {ID: "ws_free", Plan: "free", Status: "active"},
		"ws_off": {ID: "ws_off", Plan: "pro", Status: "suspended"},
	}}
	add := func(id, ws string, c byte, change func(*repo.APIKey)) {
		k := &repo.APIKey{ID: id, WorkspaceID: ws, SecretHash: HashSecret(secret(c)), Scopes: []string{"*"}}
		if change != nil {
			change(k)
		}
		store.byID[id] = k
	}
	add("key_ok", "ws_a", '1', nil)
	add("key_revoked", "ws_a", '2', func(k *repo.APIKey) { k.Revoked = true })
	add("key_expired", "ws_a", '3', func(k *repo.APIKey) { k.ExpiresAt = &past })
	add("key_grace", "ws_a", '4', func(k *repo.APIKey) { k.RolledTo, k.GraceUntil = &next, &future })
	add("key_rolled", "ws_a", '5', func(k *repo.APIKey) { k.RolledTo, k.GraceUntil = &next, &past })
	add("key_next", "ws_a", '6', func(k *repo.APIKey) { k.Scopes = []string{"messages:read"} })
	add("key_free", "ws_free", '7', nil)
	add("key_off", "ws_off", '8', nil)
	add("key_ip", "ws_a", '9', func(k *repo.APIKey) { k.IPAllowlist = []string{"10.0.0.0/8"} })
	a := &Authenticator{Keys: store, Clock: func() time.Time { return now }}
	tests := []struct {
		name     string
		secret   string
		ip       string
		wantCode apierr.Code
		wantKey  string
	}{
		{"malformed", "svc_test_short", "10.0.0.1", apierr.InvalidAPIKey, ""},
		{"unknown", secret('x'), "10.0.0.1", apierr.InvalidAPIKey, ""},
		{"valid", secret('1'), "10.0.0.1", "", "key_ok"},
		{"revoked", secret('2'), "10.0.0.1", apierr.KeyRevoked, ""},
		{"expired", secret('3'), "10.0.0.1", apierr.KeyExpired, ""},
		{"rolled, in grace, acts as its successor", secret('4'), "10.0.0.1", "", "key_next"},
		{"rolled, grace over", secret('5'), "10.0.0.1", apierr.KeyRolled, ""},
		{"free plan", secret('7'), "10.0.0.1", apierr.PlanUpgradeRequired, ""},
		{"suspended workspace", secret('8'), "10.0.0.1", apierr.AccountInactive, ""},
		{"ip inside the allowlist", secret('9'), "10.0.0.1", "", "key_ip"},
		{"ip outside the allowlist", secret('9'), "192.0.2.1", apierr.IPNotAllowed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actor, _, err := a.Authenticate(context.Background(), tt.secret, net.ParseIP(tt.ip))
			var code apierr.Code
			if e, ok := apierr.As(err); ok {
				code = e.Code
			} else if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if code != tt.wantCode {
				t.Fatalf("code = %q, want %q", code, tt.wantCode)
			}
			if tt.wantKey != "" && actor.KeyID != tt.wantKey {
				t.Errorf("key = %s, want %s", actor.KeyID, tt.wantKey)
			}
		})
	}
}
