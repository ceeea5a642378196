package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

func TestForField(t *testing.T) {
	member := func(role string) *Actor { return &Actor{WorkspaceID: "ws_a", MemberID: "mem_1", Role: role} }
	cases := []struct {
		name  string
		actor *Actor
		field string
		ok    bool
	}{
		{"admin token", &Actor{WorkspaceID: "ws_a", Admin: true}, "deleteConversation", true},
		{"owner deletes", member(RoleOwner), "deleteConversation", true},
		{"admin deletes", member(RoleAdmin), "deleteConversation", true},
		{"developer may not delete", member(RoleDeveloper), "deleteConversation", false},
		{"developer reads keys", member(RoleDeveloper), "apiKeys", true},
		{"agent may not read keys", member(RoleAgent), "apiKeys", false},
		{"an API key is no member", &Actor{WorkspaceID: "ws_a", KeyID: "key_1", Scopes: []string{"*"}}, "apiKeys", false},
		{"a role without a member id", &Actor{WorkspaceID: "ws_a", Role: RoleOwner}, "apiKeys", false},
	}
	for _, c := range cases {
		a, err := ForField(WithActor(context.Background(), c.actor), c.field)
		var e *apierr.Error
		switch {
		case c.ok && (err != nil || a != c.actor):
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && (!errors.As(err, &e) || e.Code != apierr.Forbidden || a != nil):
			t.Errorf("%s: %v, %v; want forbidden", c.name, a, err)
		}
	}
	if _, err := ForField(context.Background(), "apiKeys"); err == nil {
		t.Errorf("no caller was let in")
	}
}
