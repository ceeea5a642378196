package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

func TestForRoles(t *testing.T) {
	member := func(role string) *Actor { return &Actor{WorkspaceID: "ws_a", MemberID: "mem_1", Role: role} }
	cases := []struct {
		name  string
		actor *Actor
		roles []string
		ok    bool
	}{
		{"admin token", &Actor{WorkspaceID: "ws_a", Admin: true}, AdminRoles, true},
		{"owner deletes", member(RoleOwner), AdminRoles, true},
		{"admin deletes", member(RoleAdmin), AdminRoles, true},
		{"developer may not delete", member(RoleDeveloper), AdminRoles, false},
		{"developer reads keys", member(RoleDeveloper), DeveloperRoles, true},
		{"agent may not read keys", member(RoleAgent), DeveloperRoles, false},
		{"an API key is no member", &Actor{WorkspaceID: "ws_a", KeyID: "key_1", Scopes: []string{"*"}}, DeveloperRoles, false},
		{"a role without a member id", &Actor{WorkspaceID: "ws_a", Role: RoleOwner}, DeveloperRoles, false},
	}
	for _, c := range cases {
		a, err := ForRoles(WithActor(context.Background(), c.actor), "apiKeys", c.roles...)
		var e *apierr.Error
		switch {
		case c.ok && (err != nil || a != c.actor):
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && (!errors.As(err, &e) || e.Code != apierr.InsufficientScope || a != nil):
			t.Errorf("%s: %v, %v; want insufficient_scope", c.name, a, err)
		}
	}
	if _, err := ForRoles(context.Background(), "apiKeys", DeveloperRoles...); err == nil {
		t.Errorf("no caller was let in")
	}
}
