package jobs_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/jobs/jobstest"
)

// BenchmarkWebhookDelivery measures deliveries per second end to end, from
// the transaction that records an event to the receiver's 200, with one
// worker process (one asynq server, as msgsvc runs it) on real Postgres and
// Redis. Each event is a new conversation, so ordering holds nothing back.
func BenchmarkWebhookDelivery(b *testing.B) {
	w := jobstest.New(b, nil)
	w.StartWorker()
	rc := jobstest.NewReceiver(b, nil)
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
