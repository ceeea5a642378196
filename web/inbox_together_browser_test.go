package web_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/web/webtest"
)

// TestInboxTogetherInChromium: two members on one conversation see each
// other (viewing, typing); a private note reaches the other member live and
// never /v1; a reply typed across a new customer message asks once, then
// sends; the keyboard alone moves through the list (j) and starts a note (n).
func TestInboxTogetherInChromium(t *testing.T) {
	app := webtest.New(t)
	in := app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550006666", "name": "Gina Together", "text": "Anyone there?",
	}), 201, "").Data()
	conv := in["conversation"].(map[string]any)["id"].(string)
	b := app.Browser(t)

	open := func(email string) *webtest.Person {
		p := b.Person()
		p.SignIn(email)
		p.Click("switch", "Test mode")
		p.WaitLive()
		p.Open("/app/inbox/" + conv)
		p.WaitText("log", "Messages", "Anyone there?")
		p.WaitLive()
		return p
	}
	alice := open("alice@main.test")
	ada := open("ada@main.test")

	ada.WaitTrue("Alice viewing, seen by Ada", `document.body.innerText.includes("Alice is viewing")`)
	alice.WaitTrue("Ada viewing, seen by Alice", `document.body.innerText.includes("Ada is viewing")`)
	alice.Fill("textbox", "Reply", "Let me check")
	ada.WaitTrue("Alice typing, seen by Ada", `document.body.innerText.includes("Alice is typing")`)

	// The customer writes while Alice's reply is a draft: Send asks once.
	app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550006666", "name": "Gina Together", "text": "Actually, never mind",
	}), 201, "")
	alice.WaitText("log", "Messages", "Actually, never mind")
	alice.Click("button", "Send")
	alice.WaitFor("alert", "")
	if strings.Contains(alice.TextOf("log", "Messages"), "Let me check") {
		t.Fatal("the reply went out without asking across the new message")
	}
	alice.Axe("conversation asking before sending")
	alice.Click("button", "Send")
	alice.WaitText("log", "Messages", "Let me check")
	ada.WaitText("log", "Messages", "Let me check")

	// A private note with the keyboard: n, type, Enter.
	alice.Focus("log", "Messages")
	alice.Press("n")
	alice.WaitFor("textbox", "Note")
	alice.Type("Gina is a VIP")
	alice.Press("\r")
	alice.WaitText("log", "Messages", "Gina is a VIP")
	ada.WaitText("log", "Messages", "Gina is a VIP")
	ada.Axe("conversation with a note")
	for _, m := range app.Want(app.Do("GET", "/v1/conversations/"+conv+"/messages", "test_all", nil), 200, "").Items() {
		if m.(map[string]any)["text"] == "Gina is a VIP" {
			t.Error("the private note is in /v1")
		}
	}
	for _, e := range app.Events("ws_main") {
		if b, _ := e.Envelope["data"].(map[string]any); strings.Contains(strings.ToLower(stringify(b)), "gina is a vip") {
			t.Errorf("the private note is in the event %s", e.Type)
		}
	}

	// j moves to the next conversation of the list, with the keyboard only.
	ada.Open("/app/inbox")
	ada.ClickNode(ada.WaitForPrefix("link", "All"))
	listLoaded(t, ada)
	ada.Focus("list", "Conversations")
	ada.Press("j")
	ada.WaitTrue("j opened a conversation", `location.pathname.startsWith("/app/inbox/")`)
	ada.WaitFor("log", "Messages")
	ada.Press("?")
	ada.WaitFor("dialog", "Keyboard shortcuts")
}

func stringify(v any) string {
	var sb strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case string:
			sb.WriteString(x + " ")
		}
	}
	walk(v)
	return sb.String()
}
