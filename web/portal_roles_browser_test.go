package web_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/web/webtest"
)

// TestPortalOwnerPagesInChromium: the owner sees the tab Members besides the
// others; Usage shows the quota and each website's widget snippet; she
// invites a member, changes her role and switches her off. axe is clean on
// Usage and Members.
func TestPortalOwnerPagesInChromium(t *testing.T) {
	app := webtest.New(t)
	owner := app.Browser(t).Person()
	openPortal(t, app, owner, ownerEmail)
	owner.WaitFor("link", "Inbox")

	owner.Click("link", "Usage")
	owner.WaitFor("progressbar", "Quota used")
	owner.WaitFor("list", "Websites")
	var snippets int
	owner.Eval(`[...document.querySelectorAll("input")].filter((i) => i.value.includes('data-website="web_main"')).length`, &snippets)
	if snippets != 1 {
		t.Errorf("Usage shows %d widget snippets of web_main; want 1", snippets)
	}
	owner.Axe("Usage")

	owner.Click("link", "Members")
	owner.WaitFor("table", "Members")
	owner.Axe("Members")
	owner.Fill("textbox", "Email", "nina@main.test")
	owner.Fill("textbox", "Name", "Nina")
	owner.Click("button", "Invite")
	owner.WaitText("table", "Members", "nina@main.test")
	if app.Code(t, "nina@main.test") == "" {
		t.Error("the invitation mailed no sign-in code")
	}
	owner.Click("button", "Switch off Nina")
	owner.WaitFor("button", "Switch on Nina")
	owner.WaitText("table", "Members", "switched off")
	owner.Screenshot("portal-members")
}

// TestPortalRolesInChromium: an agent sees no Developers link, the portal's
// addresses show her nothing of it, and GraphQL refuses her the keys, the
// webhook endpoints, the request log and the batches; an admin deletes a
// conversation from the inbox (the confirmation dialog's Delete), and /v1
// no longer finds it.
func TestPortalRolesInChromium(t *testing.T) {
	app := webtest.New(t)
	b := app.Browser(t)

	agent := b.Person()
	agent.SignIn(agentEmail)
	agent.WaitFor("link", "Inbox")
	if agent.Has("link", "Developers") {
		t.Error("an agent sees the link Developers")
	}
	agent.Open("/app/developers/keys")
	agent.WaitFor("navigation", "Main")
	if agent.Has("link", "API keys") || agent.Has("button", "Create key") {
		t.Error("an agent sees the portal at /app/developers/keys")
	}
	agent.Open("/app/developers/batches")
	agent.WaitFor("navigation", "Main")
	if agent.Has("link", "Batches") || agent.Has("table", "Batches") {
		t.Error("an agent sees the portal at /app/developers/batches")
	}
	for _, q := range []string{`{apiKeys{id prefix}}`, `{webhookEndpoints{items{id}}}`, `{requestLogs{items{requestId}}}`,
		`{messageBatches{items{id}}}`} {
		if code := graphqlAs(t, agent, q); code == "" {
			t.Errorf("GraphQL answered an agent %s", q)
		}
	}

	in := app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550009898", "name": "Delia Delete", "text": "Please forget me"}), 201, "").Data()
	conv := in["conversation"].(map[string]any)["id"].(string)
	agent.Click("switch", "Test mode")
	agent.Open("/app/inbox/" + conv)
	agent.WaitText("log", "Messages", "Please forget me")
	if agent.Has("button", "Delete conversation") {
		t.Error("an agent sees Delete conversation")
	}
	admin := b.Person()
	admin.SignIn(adminEmail)
	admin.Click("switch", "Test mode")
	admin.Click("link", "Inbox")
	admin.ClickNode(admin.WaitForPrefix("link", "All"))
	admin.ClickNode(admin.WaitForPrefix("link", "Delia Delete"))
	admin.WaitText("log", "Messages", "Please forget me")
	admin.Click("button", "Delete conversation")
	admin.WaitFor("dialog", "Delete this conversation?")
	admin.Axe("Delete conversation dialog")
	admin.Click("button", "Delete")
	admin.WaitGone("dialog", "Delete this conversation?")
	app.Want(app.Do("GET", "/v1/conversations/"+conv, "test_all", nil), 404, "conversation_not_found")
}
