package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// withWorker gives the API what a worker process gives it: a real jobs
// client on a queue of the test's own, so a commit's announcements go to
// Redis as in production (no task is run: only sandbox delivery is under
// test), and the sandbox delivery loop with a delay. The API's clock stands
// still: a message is due once the test advances it past the delay.
func withWorker(t testing.TB, api *resttest.API, delay time.Duration) {
	t.Helper()
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	queue := resttest.NewQueueName()
	client := jobs.NewClient(opt)
	client.Queue = queue
	api.Reconfigure(func(c *resttest.Config) { c.Jobs = client })
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		jobs.RunSandboxDeliveries(ctx, api.Resolver.Sends, delay)
	}()
	t.Cleanup(func() {
		stop()
		<-done
		_ = client.Close()
		resttest.DropQueue(t, queue)
		resttest.DropQueue(t, jobs.WebhookQueue(queue))
	})
}

// waitStatus polls GET /v1/messages/{id} until the status, within a bound.
func waitStatus(t *testing.T, api *resttest.API, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		msg := api.Want(api.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "").Data()
		if msg["status"] == status {
			return msg
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s stayed %v, want %s", id, msg["status"], status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSandboxDeliveryThroughTheWorker: a worker's loop makes sandbox sends
// delivered, or failed for simulate:failed, once their delay has run out on
// the clock, each with one message.status; another pass changes nothing.
func TestSandboxDeliveryThroughTheWorker(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	delay := 2 * time.Second
	withWorker(t, api, delay)
	ok := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "arrives"}), 201, "").Data()
	bad := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "please simulate:failed"}), 201, "").Data()
	if ok["status"] != "sent" || bad["status"] != "sent" {
		t.Fatalf("sandbox sends answer %v and %v, want sent", ok["status"], bad["status"])
	}
	api.Clock.Advance(delay)
	delivered := waitStatus(t, api, ok["id"].(string), "delivered")
	if d := delivered["delivery"].(map[string]any); d["delivered_at"] != "2026-10-15T12:00:02.000Z" || d["error"] != nil || d["sent_at"] == nil {
		t.Errorf("delivered: %v", d)
	}
	failed := waitStatus(t, api, bad["id"].(string), "failed")
	d := failed["delivery"].(map[string]any)
	if e, _ := d["error"].(map[string]any); e == nil || e["code"] != "simulated_failure" || d["failed_at"] != "2026-10-15T12:00:02.000Z" {
		t.Errorf("failed: %v", d)
	}
	// Another pass, later, changes nothing and records nothing.
	before := len(api.Events("ws_main"))
	api.Clock.Advance(time.Minute)
	if err := api.Resolver.Sends.DeliverSandbox(context.Background(), delay); err != nil {
		t.Fatal(err)
	}
	events := api.Events("ws_main")
	if len(events) != before {
		t.Errorf("a second pass recorded %d events", len(events)-before)
	}
	statuses := map[string]string{}
	for _, e := range events {
		if e.Type == "message.status" {
			data := e.Envelope["data"].(map[string]any)
			statuses[data["id"].(string)] = data["status"].(string)
		}
	}
	if len(statuses) != 2 || statuses[ok["id"].(string)] != "delivered" || statuses[bad["id"].(string)] != "failed" {
		t.Errorf("message.status events %v", statuses)
	}
}

// TestSandboxMessagesAreDeliveredOnceDue: with no job queue at all, the
// pass makes a sandbox message delivered (or failed) from Postgres once
// the delay has run out on the clock, and not a millisecond before; passes
// after that change nothing.
func TestSandboxMessagesAreDeliveredOnceDue(t *testing.T) {
	t.Parallel()
	api := resttest.New(t) // no job queue: nothing but Postgres knows the messages are due
	sent := api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "hello"}), 201, "").Data()
	failing := api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "simulate:failed"}), 201, "").Data()
	status := func(id string) string {
		return api.Want(api.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "").Data()["status"].(string)
	}
	delay := 2 * time.Second
	api.Clock.Advance(delay - time.Millisecond)
	if err := api.Resolver.Sends.DeliverSandbox(t.Context(), delay); err != nil {
		t.Fatal(err)
	}
	if got := status(sent["id"].(string)); got != "sent" {
		t.Fatalf("delivered before its delay ran out: %s", got)
	}
	api.Clock.Advance(time.Millisecond)
	for i := 0; i < 2; i++ { // a second pass changes nothing
		if err := api.Resolver.Sends.DeliverSandbox(t.Context(), delay); err != nil {
			t.Fatal(err)
		}
	}
	if got := status(sent["id"].(string)); got != "delivered" {
		t.Errorf("once due: %s", got)
	}
	if got := status(failing["id"].(string)); got != "failed" {
		t.Errorf("simulate:failed once due: %s", got)
	}
	statuses := 0
	for _, e := range api.Events("ws_main") {
		if e.Type == "message.status" {
			statuses++
		}
	}
	if statuses != 2 {
		t.Errorf("%d message.status events, want 2", statuses)
	}
}

// TestSandboxReplyIsOneTransaction: a sandbox reply into an existing
// conversation is stored sent, with message.sent, in the one transaction
// that checks it: the conversation is locked and read once, with its
// account and contact, and the message is written once (a reserve and a
// confirm would lock and write again).
func TestSandboxReplyIsOneTransaction(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-one-tx"})
	body := map[string]any{"conversation_id": conv, "text": "first"}
	if r := sendMsg(api, "test_all", body); r.Status != 201 {
		t.Fatalf("warm-up send: %d %s", r.Status, r.Raw)
	}
	before := api.Store.Statements()
	r := sendMsg(api, "test_all", map[string]any{"conversation_id": conv, "text": "second"})
	used := api.Store.Statements() - before
	if r.Status != 201 || r.Body["data"].(map[string]any)["status"] != "sent" {
		t.Fatalf("send: %d %s", r.Status, r.Raw)
	}
	// The key and its workspace (this API has no key cache), then the lock
	// that reads the account and contact with the conversation, and one
	// statement of the conversation update, the message insert and the
	// message.sent event, held until the commit (repo/held.go). A reserve
	// and a confirm made it 10; the account and contact read apart from the
	// lock, 8; the three writes one at a time, 6.
	if used > 4 {
		t.Errorf("a sandbox reply ran %d statements, want at most 4", used)
	}
	var sent int
	if err := api.Store.DB.Get(&sent, `SELECT count(*) FROM events WHERE type = 'message.sent'
		AND envelope->'data'->>'text' = 'second'`); err != nil || sent != 1 {
		t.Errorf("message.sent of the reply: %d (%v), want 1", sent, err)
	}
}
