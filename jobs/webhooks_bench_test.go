package jobs_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkWebhookDelivery measures deliveries per second end to end, from
// the transaction that records an event to the receiver's 200, with one
// worker process (one asynq server, as msgsvc runs it) on real Postgres and
// Redis. Each event is a new conversation, so ordering holds nothing back.
func BenchmarkWebhookDelivery(b *testing.B) {
	w := resttest.NewWorld(b, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(b, nil)
	w.CreateEndpoint(rc.URL, onlyMessages)
	ctx := auth.WithActor(b.Context(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}, Version: auth.ServedVersion})
	text := "benchmark"

	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	senders := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range senders {
				in := model.SimulateInboundInput{Channel: "website", From: fmt.Sprintf("bench-%d", i), Text: &text}
				if _, err := w.Resolver.Mutation().SimulateInbound(ctx, in); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range b.N {
		senders <- i
	}
	close(senders)
	wg.Wait()
	sent := time.Now()
	deadline := time.Now().Add(5 * time.Minute)
	for len(rc.Events()) < b.N {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d deliveries arrived", len(rc.Events()), b.N)
		}
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
	// The events are made as fast as the senders go; the deliveries keep
	// up when the last one arrives soon after the last event is recorded.
	b.ReportMetric(float64(b.N)/sent.Sub(start).Seconds(), "events/s")
	b.ReportMetric(float64(time.Since(sent).Milliseconds()), "tail-ms")
}

// BenchmarkWebhookChainStep measures one step of a conversation's ordered
// chain alone: b.N (at least 100) inbound messages of one conversation are
// recorded and fanned out first, with no worker running, and then the
// chain runs as a worker runs it (webhook.Service.AttemptDelivery, which
// follows the next delivery of the conversation itself, chainLimit steps
// a task): attempt (a signed POST to a receiver answering at once), record
// the success and find the next in one statement, claim the next. step-ms
// is the time of one step, events/s its inverse (one conversation's
// ceiling), stmts/step the SQL statements of a step.
func BenchmarkWebhookChainStep(b *testing.B) {
	w := resttest.NewWorld(b, nil)
	rc := resttest.NewReceiver(b, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	n := max(b.N, 100)
	var conv string
	for i := range n {
		msg := w.Inbound("website", "chain-step", fmt.Sprintf("step %d", i))["message"].(map[string]any)
		conv = msg["conversation_id"].(string)
	}
	svc := w.Resolver.Webhooks
	ctx := b.Context()
	if err := svc.FanOut(ctx); err != nil {
		b.Fatal(err)
	}
	stmts := w.Store.Statements()
	b.ResetTimer()
	for len(rc.Events()) < n {
		next, err := w.Store.NextInOrder(ctx, ep.ID, conv)
		if err != nil {
			b.Fatalf("after %d of %d: %v", len(rc.Events()), n, err)
		}
		if err := svc.AttemptDelivery(ctx, next.ID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	step := b.Elapsed() / time.Duration(n)
	b.ReportMetric(float64(step.Microseconds())/1000, "step-ms")
	b.ReportMetric(float64(time.Second)/float64(step), "events/s")
	b.ReportMetric(float64(w.Store.Statements()-stmts)/float64(n), "stmts/step")
	events := rc.Events()
	for i, e := range events {
		if text, _ := e.Data()["text"].(string); text != fmt.Sprintf("step %d", i) {
			b.Fatalf("delivery %d is %q: out of order", i, text)
		}
	}
}
