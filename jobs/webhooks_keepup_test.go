package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestWebhooksKeepUpWithSandboxSends sends sandbox messages at about 100 a
// second over 100 conversations, with one worker process running every
// task a send makes (fan-out, AI passes, deliveries) and the sandbox loop.
// Every message.sent and message.status event must reach the endpoint, each
// conversation's in order. The lag from a send's answer to its
// message.sent's arrival is logged, not asserted: speed belongs to
// BenchmarkWebhookLag.
func TestWebhooksKeepUpWithSandboxSends(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of sends and deliveries")
	}
	lags, _ := keepUp(t, 100, 300, 100, true)
	t.Logf("%d message.sent deliveries at 100 sends/s: p50 lag %v, p99 %v, max %v",
		len(lags), lags[len(lags)/2], lags[len(lags)*99/100], lags[len(lags)-1])
}

// BenchmarkWebhookLag is TestWebhooksKeepUpWithSandboxSends as a benchmark:
// b.N sends at 100 a second; it reports the p50 and p99 lag of message.sent.
func BenchmarkWebhookLag(b *testing.B) {
	lags, _ := keepUp(b, 100, max(b.N, 100), 100, true)
	b.ReportMetric(float64(lags[len(lags)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Milliseconds()), "p99-ms")
}

// BenchmarkHotConversation is a hot conversation: b.N sends (at least 600)
// over 3 conversations as fast as the API takes them (8 at once), the
// receiver answering at once. Each conversation's deliveries are a chain
// (attempt, record, find the next, claim it), so step-ms, the median time
// between two arrivals of one conversation, is the chain's per-step
// latency, and events/s the events of one conversation delivered a second
// (2 a send: message.sent, message.status); p50-ms and p99-ms are the lags
// of message.sent from the send's answer. Every event arrives, in order.
// "here" is the worker as msgsvc runs it, attempting what its fan-out
// finds due at once (webhook.Config.Here); "queue" hands those to the
// queue, for comparison.
func BenchmarkHotConversation(b *testing.B) {
	for _, here := range []bool{false, true} {
		name := map[bool]string{false: "queue", true: "here"}[here]
		b.Run(name, func(b *testing.B) {
			lags, steps := keepUp(b, 1000, max(b.N, 600), 3, here)
			slices.Sort(steps)
			var span time.Duration
			for _, s := range steps {
				span += s
			}
			b.ReportMetric(float64(lags[len(lags)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(lags[len(lags)*99/100].Milliseconds()), "p99-ms")
			b.ReportMetric(float64(steps[len(steps)/2].Microseconds())/1000, "step-ms")
			b.ReportMetric(float64(len(steps))/span.Seconds(), "events/s")
		})
	}
}

// keepUp makes n sandbox sends at rate a second over convs new
// conversations, checks that every message.sent and message.status event
// arrives in its conversation's order, and returns the message.sent lags,
// sorted, and the times between two arrivals of one conversation.
func keepUp(t testing.TB, rate, n, convs int, here bool) (lags, steps []time.Duration) {
	w := resttest.NewWorld(t, nil)
	conversations := make([]string, convs)
	for i := range conversations {
		msg := w.Inbound("website", fmt.Sprintf("keep-up-%d", i), "hello")["message"].(map[string]any)
		conversations[i] = msg["conversation_id"].(string)
	}
	startFullWorker(w, here)
	var mu sync.Mutex
	arrived := map[string]time.Time{} // message id of a message.sent -> first arrival
	order := map[string][]string{}    // conversation -> event ids, first arrivals in order
	last := map[string]time.Time{}    // conversation -> its last first arrival
	rc := resttest.NewReceiver(t, func(_ int, r resttest.Request) int {
		mu.Lock()
		defer mu.Unlock()
		conv, _ := r.Data()["conversation_id"].(string)
		if slices.Contains(order[conv], r.ID()) {
			return 200 // a duplicate: at least once allows it
		}
		order[conv] = append(order[conv], r.ID())
		now := time.Now()
		if at, ok := last[conv]; ok {
			steps = append(steps, now.Sub(at))
		}
		last[conv] = now
		if r.Type() == "message.sent" {
			arrived[r.Data()["id"].(string)] = time.Now()
		}
		return 200
	})
	w.CreateEndpoint(rc.URL, map[string]any{"events": []string{"message.sent", "message.status"}})

	answered := sendAtRate(w, rate, n, conversations)
	want := 2 * n // each send: message.sent, then message.status
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		got := 0
		for _, ids := range order {
			got += len(ids)
		}
		mu.Unlock()
		if got >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events arrived", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	checkOrder(t, w, order)
	for id, at := range answered {
		lags = append(lags, max(arrived[id].Sub(at), 0))
	}
	slices.Sort(lags)
	return lags, steps
}

// startFullWorker starts a worker process's asynq servers with the
// handlers a sandbox send's tasks need (AI passes find nothing to do) and
// its sandbox delivery loop. The world's clock stands still, so the loop's
// delay is 0: each message is delivered by the first pass after its send.
// here: its fan-out attempts what it finds due in the process, as msgsvc's
// worker does (webhook.Config.Here).
func startFullWorker(w *resttest.World, here bool) {
	ctx, stop := context.WithCancel(context.Background())
	if here {
		if w.Config.Webhooks == nil { // the defaults, in a Config of this world's
			w.Reconfigure(func(c *resttest.Config) { c.Webhooks = &webhook.Config{SweepGrace: 30 * time.Second} })
		}
		w.Reconfigure(func(c *resttest.Config) { c.Webhooks.Here = ctx })
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		jobs.RunSandboxDeliveries(ctx, w.Resolver.Sends, 0)
	}()
	w.T.Cleanup(func() { stop(); <-done })
	srv := jobs.NewServerOn(w.Redis, 10, w.Queue)
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{Webhooks: w.Resolver.Webhooks})
	mux.HandleFunc(jobs.TypeAIDispatch, func(context.Context, *asynq.Task) error { return nil })
	if err := srv.Start(mux); err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(srv.Shutdown)
}

// sendAtRate makes n sandbox sends, one every 1/rate s while fewer than 8
// are under way (a slow machine lowers the rate rather than piling up
// connections), and returns when each send's answer came, by message id.
func sendAtRate(w *resttest.World, rate, n int, conversations []string) map[string]time.Time {
	var mu sync.Mutex
	answered := map[string]time.Time{}
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	busy := make(chan struct{}, 8)
	for i := range n {
		<-tick.C
		busy <- struct{}{}
		wg.Go(func() {
			defer func() { <-busy }()
			body := map[string]any{"conversation_id": conversations[i%len(conversations)], "text": fmt.Sprintf("keep-up %d", i)}
			msg := w.Want(w.Do("POST", "/v1/messages", "test_all", body), 201, "").Data()
			mu.Lock()
			answered[msg["id"].(string)] = time.Now()
			mu.Unlock()
		})
	}
	wg.Wait()
	return answered
}

// checkOrder compares each conversation's arrivals with its events' order
// as recorded.
func checkOrder(t testing.TB, w *resttest.World, order map[string][]string) {
	want := map[string][]string{}
	for _, e := range w.Events("ws_main") {
		data, _ := e.Envelope["data"].(map[string]any)
		conv, _ := data["conversation_id"].(string)
		if _, ours := order[conv]; ours && (e.Type == "message.sent" || e.Type == "message.status") {
			want[conv] = append(want[conv], e.Envelope["id"].(string))
		}
	}
	for conv, ids := range order {
		if !slices.Equal(ids, want[conv]) {
			t.Errorf("conversation %s: %d events arrived, %d recorded, or not in their order", conv, len(ids), len(want[conv]))
		}
	}
}
