package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/web/webtest"
)

// The fixture's people of ws_main (rest/testdata/fixture.json).
const (
	developerEmail = "devi@main.test"
	ownerEmail     = "owen@main.test"
	adminEmail     = "ada@main.test"
	agentEmail     = "alice@main.test"
)

// The portal's tabs (app.md section 5; Batches: docs/app.md).
var portalTabs = []string{"API keys", "Webhooks", "Usage", "Request logs", "Batches"}

// openPortal signs p in, follows the link Developers, switches Test mode on
// (the sandbox: test keys' requests and deliveries) and waits for the tabs.
func openPortal(t *testing.T, app *webtest.App, p *webtest.Person, email string) {
	t.Helper()
	p.SignIn(email)
	p.Click("link", "Developers")
	for _, tab := range portalTabs {
		p.WaitFor("link", tab)
	}
	var on bool
	p.Eval(`localStorage.getItem("msgsvc.testMode") === "true"`, &on)
	if !on {
		p.Click("switch", "Test mode")
	}
	p.WaitFor("heading", "API keys")
}

// stepUp answers the step-up dialog with the code mailed to email.
func stepUp(t *testing.T, app *webtest.App, p *webtest.Person, email string) {
	t.Helper()
	p.WaitFor("dialog", "Confirm it is you")
	p.Fill("textbox", "Code", app.Code(t, email))
	p.Click("button", "Confirm")
	p.WaitGone("dialog", "Confirm it is you")
}

// valueOf is the value of the input labelled label (a textbox's text,
// which innerText does not hold).
func valueOf(t *testing.T, p *webtest.Person, label string) string {
	t.Helper()
	p.WaitFor("textbox", label)
	var v string
	p.Eval(fmt.Sprintf(`(() => { const l = [...document.querySelectorAll("label")].find((l) => l.textContent.trim() === %q);
		return l && l.control ? l.control.value : ""; })()`, label), &v)
	if v == "" {
		t.Fatalf("the textbox %q is empty", label)
	}
	return v
}

// waitPageText waits until the page's visible text holds text.
func waitPageText(t *testing.T, p *webtest.Person, text string) {
	t.Helper()
	deadline := time.Now().Add(webtest.Wait)
	for !strings.Contains(p.Text(), text) {
		if time.Now().After(deadline) {
			p.Screenshot("failed-" + strings.Join(strings.Fields(text), "_"))
			t.Fatalf("the page never showed %q; it shows:\n%s", text, p.Text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// graphqlAs runs a GraphQL query in p's page (her session cookie, Test
// mode) and returns the first error's code, "" when none.
func graphqlAs(t *testing.T, p *webtest.Person, query string) string {
	t.Helper()
	var raw string
	p.Eval(fmt.Sprintf(`fetch("/graphql", {method: "POST", credentials: "same-origin",
		headers: {"Content-Type": "application/json", "Msgsvc-Livemode": "false"},
		body: JSON.stringify({query: %q})}).then((r) => r.text())`, query), &raw)
	var body struct {
		Errors []struct {
			Extensions struct{ Code string } `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatalf("GraphQL %s answered %q", query, raw)
	}
	if len(body.Errors) == 0 {
		return ""
	}
	if c := body.Errors[0].Extensions.Code; c != "" {
		return c
	}
	return "error"
}

// v1 calls /v1 with a secret and answers the response.
func v1(app *webtest.App, method, path, secret string, body any) *resttest.Response {
	return app.Do(method, path, "", body, "Authorization", "Bearer "+secret)
}
