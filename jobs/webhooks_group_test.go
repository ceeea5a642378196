package jobs_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// deliverTasks lists the delivery tasks waiting in the world's webhook
// queue, as the deliveries each names.
func deliverTasks(t *testing.T, w *resttest.World) [][]string {
	t.Helper()
	ins := asynq.NewInspector(w.Redis)
	defer ins.Close()
	tasks, err := ins.ListPendingTasks(jobs.WebhookQueue(w.Queue), asynq.PageSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, task := range tasks {
		if task.Type != jobs.TypeWebhookDeliver {
			continue // the fan-out the commits asked for
		}
		var p jobs.DeliverPayload
		if err := json.Unmarshal(task.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.IDs())
	}
	return out
}

// TestBurstGoesInGroupedTasks: a fan-out of many ready deliveries hands them
// to the queue in ceil(ready/DeliverGroupSize) tasks that name each once; a worker then
// delivers every event exactly once, each conversation's in order (the
// successors follow their predecessors in the same task).
func TestBurstGoesInGroupedTasks(t *testing.T) {
	t.Parallel()
	const conversations, perConversation = 37, 3
	w := resttest.NewWorld(t, nil) // the worker starts once the tasks are counted
	var mu sync.Mutex
	order := map[int][]int{}
	rc := resttest.NewReceiver(t, func(_ int, r resttest.Request) int {
		var c, n int
		if _, err := fmt.Sscanf(r.Data()["text"].(string), "c%d-%d", &c, &n); err != nil {
			t.Errorf("unexpected event %s", r.Body)
		}
		mu.Lock()
		order[c] = append(order[c], n)
		mu.Unlock()
		return 200
	})
	w.CreateEndpoint(rc.URL, onlyMessages)
	ctx := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}, Version: auth.ServedVersion})
	for n := range perConversation {
		for c := range conversations {
			text := fmt.Sprintf("c%d-%d", c, n)
			in := model.SimulateInboundInput{Channel: "website", From: fmt.Sprintf("group-%d", c), Text: &text}
			if _, err := w.Resolver.Mutation().SimulateInbound(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Ready are the first deliveries of each conversation; the others wait.
	var ready []string
	if err := w.Store.DB.Select(&ready, `SELECT DISTINCT ON (conversation_id) id FROM webhook_deliveries
		ORDER BY conversation_id, event_seq`); err != nil {
		t.Fatal(err)
	}
	tasks := deliverTasks(t, w)
	if want := (conversations + jobs.DeliverGroupSize - 1) / jobs.DeliverGroupSize; len(tasks) != want {
		t.Fatalf("%d delivery tasks for %d ready deliveries, want %d", len(tasks), len(ready), want)
	}
	if got := slices.Sorted(slices.Values(slices.Concat(tasks...))); !slices.Equal(got, slices.Sorted(slices.Values(ready))) {
		t.Fatalf("the tasks name %v, want the ready deliveries %v once each", got, ready)
	}

	w.StartWorker()
	total := conversations * perConversation
	resttest.Eventually(t, "every delivery to succeed", func() bool {
		var n int
		err := w.Store.DB.Get(&n, `SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded' AND attempts = 1`)
		return err == nil && n == total
	})
	if got := len(rc.Events()); got != total {
		t.Errorf("%d requests for %d deliveries, want one each", got, total)
	}
	mu.Lock()
	defer mu.Unlock()
	for c, ns := range order {
		if !slices.Equal(ns, []int{0, 1, 2}) {
			t.Errorf("conversation %d arrived as %v, want [0 1 2]", c, ns)
		}
	}
}

// TestSlowEndpointHoldsUpNoTaskMate: one event for three endpoints is one
// task of three deliveries. While the slow endpoint has not answered, the
// fast one's delivery succeeds and the failing one's is recorded for a
// retry; the slow one's then succeeds too.
func TestSlowEndpointHoldsUpNoTaskMate(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	release := make(chan struct{})
	slowRC := resttest.NewReceiver(t, func(int, resttest.Request) int { <-release; return 200 })
	var once sync.Once // released before the receiver closes, which waits for its requests
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	fastRC := resttest.NewReceiver(t, nil)
	failingRC := resttest.NewReceiver(t, func(int, resttest.Request) int { return 500 })
	slow, fast, failing := w.CreateEndpoint(slowRC.URL, onlyMessages), w.CreateEndpoint(fastRC.URL, onlyMessages),
		w.CreateEndpoint(failingRC.URL, onlyMessages)
	w.Inbound("website", "visitor-slow", "one for everyone")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	if tasks := deliverTasks(t, w); len(tasks) != 1 || len(tasks[0]) != 3 {
		t.Fatalf("delivery tasks %v, want one of three", tasks)
	}
	delivery := func(ep resttest.Endpoint) string { return w.Deliveries(ep.ID, "test_all")[0]["id"].(string) }

	w.StartWorker()
	slowRC.WaitEvents(t, 1) // sent, and not answered until released
	w.WaitDelivery(delivery(fast), "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	d := w.WaitDelivery(delivery(failing), "to be retried", func(d *repo.WebhookDelivery) bool { return d.Status == "retrying" })
	if d.Attempts != 1 || d.LastResponseStatus == nil || *d.LastResponseStatus != 500 {
		t.Errorf("the failing endpoint's delivery: %+v", d)
	}
	if d := w.Delivery(delivery(slow)); d.Status != "pending" || d.LeaseUntil == nil {
		t.Fatalf("the slow endpoint's delivery before its answer: %+v", d)
	}
	once.Do(func() { close(release) })
	w.WaitDelivery(delivery(slow), "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
}

// TestPreviousVersionsTaskIsDelivered: a task queued by the version before
// grouped tasks, {"delivery_id", "not_before"}, left in Redis across the
// upgrade, is delivered by today's worker.
func TestPreviousVersionsTaskIsDelivered(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-upgrade", "queued before the upgrade")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	ins := asynq.NewInspector(w.Redis)
	defer ins.Close()
	if _, err := ins.DeleteAllPendingTasks(jobs.WebhookQueue(w.Queue)); err != nil { // today's task goes
		t.Fatal(err)
	}
	id := w.Deliveries(ep.ID, "test_all")[0]["id"].(string)
	payload := fmt.Sprintf(`{"delivery_id":%q,"not_before":%q}`, id, time.Now().UTC().Format(time.RFC3339Nano))
	c := asynq.NewClient(w.Redis)
	defer c.Close()
	if _, err := c.Enqueue(asynq.NewTask(jobs.TypeWebhookDeliver, []byte(payload)),
		asynq.Queue(jobs.WebhookQueue(w.Queue)), asynq.MaxRetry(0)); err != nil {
		t.Fatal(err)
	}
	w.StartWorker()
	d := w.WaitDelivery(id, "to succeed", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	if got := rc.Events(); d.Attempts != 1 || len(got) != 1 || got[0].Data()["text"] != "queued before the upgrade" {
		t.Errorf("delivery %+v, %d requests", d, len(got))
	}
}
