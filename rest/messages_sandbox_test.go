package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// withWorker gives the API a real asynq client and worker on a queue of the
// test's own, so parallel tests never take each other's tasks.
func withWorker(t testing.TB, api *resttest.API, delay time.Duration) {
	t.Helper()
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	queue := resttest.NewQueueName()
	client := jobs.NewClient(opt)
	client.Queue, client.SandboxDelay = queue, delay
	api.Resolver.Jobs = client
	srv := jobs.NewServerOn(opt, 2, queue)
	mux := asynq.NewServeMux()
	mux.Handle(jobs.TypeSandboxDelivery, jobs.SandboxHandler(api.Resolver))
	// Only sandbox delivery is under test: other tasks the resolver
	// schedules on this queue (webhook fan-out) are acknowledged unrun.
	only := asynq.HandlerFunc(func(ctx context.Context, task *asynq.Task) error {
		if task.Type() != jobs.TypeSandboxDelivery {
			return nil
		}
		return mux.ProcessTask(ctx, task)
	})
	if err := srv.Start(only); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Shutdown()
		_ = client.Close()
		resttest.DropQueue(t, queue)
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

func TestSandboxDeliveryThroughTheWorker(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	withWorker(t, api, 50*time.Millisecond)
	ok := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "arrives"}), 201, "").Data()
	bad := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "please simulate:failed"}), 201, "").Data()
	if ok["status"] != "sent" || bad["status"] != "sent" {
		t.Fatalf("sandbox sends answer %v and %v, want sent", ok["status"], bad["status"])
	}
	delivered := waitStatus(t, api, ok["id"].(string), "delivered")
	if d := delivered["delivery"].(map[string]any); d["delivered_at"] != "2026-10-15T12:00:00.000Z" || d["error"] != nil || d["sent_at"] == nil {
		t.Errorf("delivered: %v", d)
	}
	failed := waitStatus(t, api, bad["id"].(string), "failed")
	d := failed["delivery"].(map[string]any)
	if e, _ := d["error"].(map[string]any); e == nil || e["code"] != "simulated_failure" || d["failed_at"] == nil {
		t.Errorf("failed: %v", d)
	}
	// Running the step again changes nothing and records nothing.
	before := len(api.Events("ws_main"))
	if err := api.Resolver.FinishSandboxDelivery(context.Background(), "ws_main", ok["id"].(string)); err != nil {
		t.Fatal(err)
	}
	events := api.Events("ws_main")
	if len(events) != before {
		t.Errorf("a second run recorded %d events", len(events)-before)
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

// TestSandboxDeliveredStepStatements: the delivered step locks the message
// and its conversation in one statement, then writes the message and
// message.status; a second run reads the message and stops.
func TestSandboxDeliveredStepStatements(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	sent := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "arrives"}), 201, "").Data()
	id := sent["id"].(string)
	for run, most := range []int64{3, 1} {
		before := api.Store.Statements()
		if err := api.Resolver.FinishSandboxDelivery(t.Context(), "ws_main", id); err != nil {
			t.Fatal(err)
		}
		// The message and conversation locked apart made the first run 4.
		if used := api.Store.Statements() - before; used > most {
			t.Errorf("run %d of the delivered step ran %d statements, want at most %d", run+1, used, most)
		}
	}
	if got := api.Want(api.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "").Data()["status"]; got != "delivered" {
		t.Errorf("status %v after the delivered step, want delivered", got)
	}
}
