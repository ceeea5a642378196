package web_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/web/webtest"
)

// TestPortalKeysInChromium is the keys half of issue 39's "done when": the
// demo developer creates a test key with a step-up code from the mail, the
// secret (shown once) answers /v1 200, the request log finds that call by
// its request id, a roll (step-up again) gives a new secret while the old
// one works for the grace period, and revoking the rolled key and then the
// new one makes /v1 refuse each (401 key_revoked). axe is clean on each
// screen.
func TestPortalKeysInChromium(t *testing.T) {
	app := webtest.New(t)
	dev := app.Browser(t).Person()
	openPortal(t, app, dev, developerEmail)
	dev.WaitFor("table", "API keys")
	dev.Axe("API keys")

	dev.Click("button", "Create key")
	dev.WaitFor("dialog", "Create key")
	dev.Fill("textbox", "Name", "Browser key")
	dev.Click("radio", "Test")
	dev.Click("checkbox", "conversations:read")
	dev.Click("checkbox", "messages:read")
	dev.Axe("Create key dialog")
	dev.Click("button", "Create")
	stepUp(t, app, dev, developerEmail)
	secret := valueOf(t, dev, "Secret")
	dev.WaitFor("button", "Copy secret")
	dev.Axe("the new key's secret")
	dev.Click("button", "Done")
	dev.WaitText("table", "API keys", "Browser key")
	if len(secret) < 20 || secret[:9] != "svc_test_" || !dev.Has("cell", "svc_test_…"+secret[len(secret)-4:]) {
		t.Errorf("the secret %q is not a test key's, or the list does not show its prefix and last 4", secret)
	}

	// The secret works, and the call is in the request log.
	r := app.Want(v1(app, "GET", "/v1/conversations", secret, nil), 200, "")
	requestID := r.Header.Get("X-Request-Id")
	if requestID == "" {
		t.Fatal("/v1 answered no X-Request-Id")
	}
	app.Want(v1(app, "GET", "/v1/contacts", secret, nil), 403, "insufficient_scope")
	app.FlushRequestLog()
	dev.Click("link", "Request logs")
	dev.WaitFor("table", "Requests")
	dev.Fill("textbox", "Request id", requestID)
	dev.Click("button", "Search")
	// Before the search the table lists both calls: wait for the narrowing.
	dev.WaitNoText("table", "Requests", "insufficient_scope")
	dev.WaitText("table", "Requests", requestID)
	row := dev.TextOf("table", "Requests")
	for _, want := range []string{"GET", "/v1/conversations", "200", "Browser key"} {
		if !strings.Contains(row, want) {
			t.Errorf("the request's row lacks %q:\n%s", want, row)
		}
	}
	dev.Axe("Request logs")

	// Roll with step-up: a new secret; the old one works during the grace.
	dev.Click("link", "API keys")
	dev.Click("button", "Roll Browser key")
	dev.WaitFor("dialog", "Roll Browser key")
	dev.Click("button", "Roll key")
	stepUp(t, app, dev, developerEmail)
	rolled := valueOf(t, dev, "Secret")
	if rolled == secret {
		t.Fatal("rolling showed the old secret")
	}
	dev.Click("button", "Done")
	app.Want(v1(app, "GET", "/v1/conversations", rolled, nil), 200, "")
	app.Want(v1(app, "GET", "/v1/conversations", secret, nil), 200, "")

	// Revoke the rolled key during its grace, then the new one: /v1
	// refuses each at once.
	dev.WaitText("table", "API keys", "rolled")
	dev.Click("button", "Revoke Browser key (rolled)")
	dev.WaitFor("dialog", "Revoke Browser key?")
	dev.Click("button", "Revoke")
	dev.WaitGone("dialog", "Revoke Browser key?")
	dev.WaitGone("button", "Revoke Browser key (rolled)")
	app.Want(v1(app, "GET", "/v1/conversations", secret, nil), 401, "key_revoked")
	app.Want(v1(app, "GET", "/v1/conversations", rolled, nil), 200, "")
	dev.Click("button", "Revoke Browser key")
	dev.Click("button", "Revoke")
	dev.WaitGone("dialog", "Revoke Browser key?")
	dev.WaitGone("button", "Revoke Browser key")
	app.Want(v1(app, "GET", "/v1/conversations", rolled, nil), 401, "key_revoked")
	dev.Screenshot("portal-keys")
}
