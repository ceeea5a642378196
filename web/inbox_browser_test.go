package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/web/webtest"
)

// TestInboxFlowInChromium is issue 38's "done when", in Chromium: the demo
// agent signs in with the code from the mail, switches to Test mode, sees a
// sandbox customer's message appear live (no reload), opens it, takes over,
// replies with Enter and hands back to the AI; /v1 has her reply with her
// as the sender, the customer's webhook receives message.sent, axe is clean
// on every screen, and another workspace's agent sees none of it.
func TestInboxFlowInChromium(t *testing.T) {
	app := webtest.New(t)
	app.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	app.CreateEndpoint(rc.URL, map[string]any{"events": []string{"message.sent"}})
	b := app.Browser(t)

	alice := b.Person()
	alice.SignIn("alice@main.test")
	alice.WaitFor("link", "Inbox")
	if alice.Has("link", "Developers") {
		t.Error("an agent sees the link Developers")
	}
	alice.WaitFor("button", "Sign out")
	alice.Click("switch", "Test mode")
	alice.WaitFor("list", "Conversations")
	for _, v := range []string{"Waiting", "Mine", "AI", "External", "Closed", "All"} {
		alice.WaitForPrefix("link", v)
	}
	alice.ClickNode(alice.WaitForPrefix("link", "All"))
	listLoaded(t, alice)
	// The socket is up through the CSP (connect-src 'self' covers ws:).
	alice.WaitLive()
	alice.Axe("inbox")
	var loads int
	alice.Eval(`performance.getEntriesByType("navigation").length`, &loads)

	// A sandbox customer writes; the list shows her without a reload (and
	// without another click).
	start := time.Now()
	in := app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550007777", "name": "Dana Browser", "text": "Hello from the sandbox",
	}), 201, "").Data()
	conv := in["conversation"].(map[string]any)["id"].(string)
	alice.WaitText("list", "Conversations", "Dana Browser")
	t.Logf("the new conversation showed in the list %s after the inbound", time.Since(start))
	var after int
	alice.Eval(`performance.getEntriesByType("navigation").length`, &after)
	var reloaded bool
	alice.Eval(`performance.getEntriesByType("navigation")[0].type === "reload"`, &reloaded)
	if after != loads || reloaded {
		t.Error("the page was reloaded")
	}
	alice.ClickNode(alice.WaitForPrefix("link", "Dana Browser"))
	alice.WaitText("log", "Messages", "Hello from the sandbox")
	alice.Axe("conversation")

	alice.Click("button", "Take over")
	alice.WaitFor("button", "Hand back to AI")
	alice.Fill("textbox", "Reply", "Hi Dana, Alice here.")
	alice.Press("\r")
	alice.WaitText("log", "Messages", "Hi Dana, Alice here.")
	alice.Click("button", "Hand back to AI")
	alice.WaitFor("button", "Take over")
	alice.Axe("conversation after the reply")
	alice.Screenshot("inbox-conversation")

	// /v1 agrees: the reply is there, written by Alice.
	msgs := app.Want(app.Do("GET", "/v1/conversations/"+conv+"/messages", "test_all", nil), 200, "").Items()
	var reply map[string]any
	for _, m := range msgs {
		if mm := m.(map[string]any); mm["text"] == "Hi Dana, Alice here." {
			reply = mm
		}
	}
	if reply == nil {
		t.Fatalf("the reply is not among the conversation's messages: %v", msgs)
	}
	sender, _ := reply["sender"].(map[string]any)
	if sender["type"] != "agent" || !strings.Contains(strings.ToLower(sender["name"].(string)+" "+stringOf(sender["id"])), "alice") {
		t.Errorf("the reply's sender is %v; want the agent Alice", sender)
	}
	resttest.Eventually(t, "message.sent at the receiver", func() bool {
		for _, e := range rc.Events() {
			if e.Type() == "message.sent" && e.Data()["id"] == reply["id"] {
				return true
			}
		}
		return false
	})
	conversation := app.Want(app.Do("GET", "/v1/conversations/"+conv, "test_all", nil), 200, "").Data()
	if conversation["mode"] != "ai" {
		t.Errorf("after Hand back to AI the conversation is in mode %v", conversation["mode"])
	}

	// Another workspace's agent sees none of it: not in her list (every
	// view, sandbox), and the conversation's page answers not found.
	oskar := b.Person()
	oskar.SignIn("oskar@other.test")
	oskar.Click("switch", "Test mode")
	oskar.ClickNode(oskar.WaitForPrefix("link", "All"))
	listLoaded(t, oskar)
	if txt := oskar.TextOf("list", "Conversations"); strings.Contains(txt, "Dana Browser") {
		t.Errorf("another workspace's agent sees the conversation: %s", txt)
	}
	oskar.Open("/app/inbox/" + conv)
	oskar.WaitFor("navigation", "Main")
	oskar.WaitFor("alert", "")
	if oskar.Has("log", "Messages") || strings.Contains(oskar.Text(), "Hello from the sandbox") {
		t.Error("another workspace's agent opened the conversation")
	}
	oskar.Axe("a conversation not found")
}

// listLoaded waits until the list Conversations has its first page.
func listLoaded(t *testing.T, p *webtest.Person) {
	t.Helper()
	resttest.Eventually(t, "the list's first page", func() bool {
		var busy string
		p.Eval(`(document.querySelector('[aria-label=Conversations]') || {getAttribute: () => "true"}).getAttribute('aria-busy')`, &busy)
		return busy == "false"
	})
}

func stringOf(v any) string { s, _ := v.(string); return s }
