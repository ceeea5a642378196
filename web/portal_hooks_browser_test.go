package web_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/web/webtest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// TestPortalWebhooksInChromium is the webhooks half of issue 39's "done
// when": the developer adds an endpoint pointing at a test receiver (the
// handshake's result shown), shows its secret with a step-up code, sends a
// test event that reaches the receiver once with a valid signature, replays
// a delivery (same event id), and after an outage (the receiver answering
// 500) recovers the failed delivery; then switches the endpoint off and
// deletes it. axe is clean on each screen.
func TestPortalWebhooksInChromium(t *testing.T) {
	// One failed attempt is final (the next would come after the give-up
	// time), so the outage leaves a failed delivery to recover at once.
	app := webtest.New(t, func(a *resttest.API) {
		a.Config.Webhooks.RetrySchedule = []time.Duration{time.Hour}
		a.Config.Webhooks.GiveUpAfter = 30 * time.Minute
	})
	startWorkerWithRecoveries(t, app)
	var outage atomic.Bool
	rc := resttest.NewReceiver(t, func(int, resttest.Request) int {
		if outage.Load() {
			return 500
		}
		return 200
	})
	verify := func(r resttest.Request, secret string) {
		t.Helper()
		if err := webhooksig.Verify(r.Header.Get(webhooksig.HeaderName), r.Body, app.Clock.Now(), secret); err != nil {
			t.Errorf("%s %s: the signature does not verify with the shown secret: %v", r.Type(), r.ID(), err)
		}
	}

	dev := app.Browser(t).Person()
	openPortal(t, app, dev, developerEmail)
	dev.Click("link", "Webhooks")
	dev.WaitFor("button", "Add endpoint")
	dev.Axe("Webhooks")

	dev.Click("button", "Add endpoint")
	dev.Fill("textbox", "URL", rc.URL)
	dev.Click("checkbox", "Every event")
	dev.Click("checkbox", "message.received")
	dev.Axe("Add endpoint")
	dev.Click("button", "Create")
	waitPageText(t, dev, "Verified: the endpoint answered the handshake.")
	created := valueOf(t, dev, "Signing secret")

	dev.Click("link", rc.URL)
	dev.WaitFor("button", "Send test event")
	dev.WaitFor("button", "Roll secret")
	dev.WaitFor("table", "Deliveries")
	dev.Axe("endpoint")
	var endpointID string
	dev.Eval(`location.pathname.split("/").pop()`, &endpointID)

	dev.Click("button", "Show secret")
	stepUp(t, app, dev, developerEmail)
	secret := valueOf(t, dev, "Signing secret")
	if secret != created {
		t.Errorf("Show secret shows %q; the endpoint was created with %q", secret, created)
	}

	// Send test event: once, signed, listed among the deliveries.
	dev.Click("button", "Send test event")
	waitPageText(t, dev, "Delivered: the endpoint answered 200")
	test := rc.WaitEvents(t, 1)[0]
	if test.Type() != "endpoint.test" {
		t.Fatalf("the receiver got %s; want endpoint.test", test.Type())
	}
	verify(test, secret)
	dev.WaitText("table", "Deliveries", "endpoint.test")
	time.Sleep(1500 * time.Millisecond)
	if n := len(rc.Events()); n != 1 {
		t.Errorf("the test event reached the receiver %d times; want once", n)
	}

	// A customer writes (sandbox): message.received; replay it.
	app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550004242", "name": "Hook Tester", "text": "Hello hooks"}), 201, "")
	received := rc.WaitEvents(t, 2)[1]
	if received.Type() != "message.received" {
		t.Fatalf("the receiver got %s; want message.received", received.Type())
	}
	dev.Click("button", "Refresh")
	dev.WaitText("table", "Deliveries", "message.received")
	dev.Click("button", "Replay")
	waitPageText(t, dev, "Replayed as ")
	// The list reloads with the replay as its newest row, moving the rows
	// under it: wait for it before aiming at a button below.
	dev.WaitText("table", "Deliveries", "replay of ")
	replayed := rc.WaitEvents(t, 3)[2]
	if replayed.ID() != received.ID() {
		t.Errorf("the replay carries event %s; want %s", replayed.ID(), received.ID())
	}
	verify(replayed, secret)

	// Each delivery's attempts: the test event's shows the 200.
	attempts, err := dev.Find("button", "Attempts of", true)
	if err != nil || len(attempts) == 0 {
		t.Fatalf("no Attempts buttons (%v)", err)
	}
	dev.ClickNode(attempts[len(attempts)-1])
	dev.WaitText("list", "Attempts of "+attempts[len(attempts)-1].Name[len("Attempts of "):], "200")
	dev.Axe("deliveries with attempts")

	// An outage: the next event fails for good; after it, recover.
	outage.Store(true)
	app.Want(app.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
		"channel": "whatsapp", "from": "+15550004242", "name": "Hook Tester", "text": "During the outage"}), 201, "")
	var failedEvent string
	resttest.Eventually(t, "a failed delivery", func() bool {
		for _, d := range app.Deliveries(endpointID, "test_all") {
			if d["status"] == "failed" {
				failedEvent, _ = d["event_id"].(string)
				return true
			}
		}
		return false
	})
	outage.Store(false)
	before := len(rc.Events())
	dev.Click("button", "Recover")
	waitPageText(t, dev, "Recovery done: 1 of 1 failed deliveries sent again.")
	got := rc.WaitEvents(t, before+1)[before]
	if got.ID() != failedEvent {
		t.Errorf("the recovery sent event %s; want the failed %s", got.ID(), failedEvent)
	}
	verify(got, secret)
	dev.Axe("endpoint after a recovery")
	dev.Screenshot("portal-endpoint")

	// Switch off and on, then delete.
	dev.Click("button", "Switch off")
	dev.WaitFor("button", "Switch on")
	dev.Click("button", "Switch on")
	dev.WaitFor("button", "Switch off")
	dev.Click("button", "Delete endpoint")
	dev.WaitFor("dialog", "Delete this endpoint?")
	dev.Click("button", "Delete")
	dev.WaitFor("button", "Add endpoint")
	dev.WaitGone("link", rc.URL)
}

// startWorkerWithRecoveries is World.StartWorker with the recoveries' task
// too (jobs.Register has it; resttest's worker registers only deliveries).
func startWorkerWithRecoveries(t *testing.T, app *webtest.App) {
	srv := jobs.NewServerOn(app.Redis, 10, app.Queue)
	mux := asynq.NewServeMux()
	jobs.RegisterWebhooks(mux, app.Resolver.Webhooks)
	mux.Handle(jobs.TypeWebhookRecover, jobs.RecoverHandler(app.Resolver.Webhooks))
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}
