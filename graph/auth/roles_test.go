package auth

import (
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// A member is refused a root field her role lacks (403 forbidden) and
// acts as herself; the admin token and API keys pass both checks.
func TestCheckFieldAndSelf(t *testing.T) {
	agent := &Actor{MemberID: "usr_a", Role: RoleAgent}
	dev := &Actor{MemberID: "usr_d", Role: RoleDeveloper}
	owner := &Actor{MemberID: "usr_o", Role: RoleOwner}
	admin := &Actor{Admin: true}
	key := &Actor{KeyID: "key_1"}
	for _, c := range []struct {
		who   *Actor
		field string
		ok    bool
	}{
		{agent, "agentReply", true}, {agent, "webhookEndpoints", false}, {agent, "inviteMember", false},
		{dev, "webhookEndpoints", true}, {dev, "conversations", false}, {dev, "agentReply", false},
		{owner, "inviteMember", true}, {owner, "conversations", true}, {owner, "webhookEndpoints", true},
		{&Actor{MemberID: "usr_x", Role: RoleAdmin}, "inviteMember", false},
		{agent, "noSuchField", false}, {agent, "__schema", true},
		{admin, "inviteMember", true}, {key, "noSuchField", true},
	} {
		err := c.who.CheckField(c.field)
		if (err == nil) != c.ok {
			t.Errorf("%+v on %s: %v, want allowed=%v", c.who, c.field, err, c.ok)
		}
		if e, isAPI := apierr.As(err); err != nil && (!isAPI || e.Code != apierr.Forbidden) {
			t.Errorf("%s: %v, want forbidden", c.field, err)
		}
	}
	if err := agent.CheckSelf("usr_a"); err != nil {
		t.Errorf("herself: %v", err)
	}
	if err := agent.CheckSelf("usr_b"); err == nil {
		t.Error("an agent acted as another")
	}
	if err := admin.CheckSelf("usr_b"); err != nil {
		t.Errorf("the admin token names any agent: %v", err)
	}
}
