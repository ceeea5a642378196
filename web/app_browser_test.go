package web_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/web/webtest"
)

// TestSignInPageInChromium: signed out, /app/ leads to the sign-in page with
// its named controls; axe finds nothing serious; the CSP blocks nothing.
func TestSignInPageInChromium(t *testing.T) {
	app := webtest.New(t)
	p := app.Browser(t).Person()
	p.Open("/app/")
	p.WaitFor("textbox", "Email")
	p.WaitFor("button", "Send code")
	p.WaitFor("textbox", "Code")
	p.WaitFor("button", "Sign in")
	var path string
	p.Eval(`location.pathname`, &path)
	if path != "/app/sign-in" {
		t.Errorf("signed out, /app/ shows %s; want /app/sign-in", path)
	}
	p.Axe("sign-in")
	p.Screenshot("sign-in")
}
