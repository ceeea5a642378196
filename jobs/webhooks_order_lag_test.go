package jobs_test

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestOrderedDeliveriesNeverWaitForTheSweep sends thousands of back-to-back
// inbound messages over a few conversations, so a successor is often
// recorded while its predecessor's delivery finishes. No sweep runs here: a
// successor that neither the fan-out nor the finished predecessor hands to
// the queue never arrives (before the fix it waited for the 30 s sweep).
// Each conversation's messages must arrive in order, and 99% of them within
// a second of being recorded (lagBound; more under the race detector).
func TestOrderedDeliveriesNeverWaitForTheSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of deliveries")
	}
	const conversations, perConversation = 5, 400
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	order := map[string][]int{}
	rc := resttest.NewReceiver(t, func(_ int, r resttest.Request) int {
		text, _ := r.Data()["text"].(string)
		var conv, n int
		if _, err := fmt.Sscanf(text, "c%d-%d", &conv, &n); err != nil {
			t.Errorf("unexpected event %s: %v", r.Body, err)
			return 200
		}
		mu.Lock()
		arrived[text] = time.Now()
		order[strconv.Itoa(conv)] = append(order[strconv.Itoa(conv)], n)
		mu.Unlock()
		return 200
	})
	w.CreateEndpoint(rc.URL, onlyMessages)
	ctx := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}, Version: auth.ServedVersion})

	recorded := map[string]time.Time{}
	var rmu sync.Mutex
	var wg sync.WaitGroup
	for c := range conversations {
		wg.Go(func() {
			for n := range perConversation {
				text := fmt.Sprintf("c%d-%d", c, n)
				start := time.Now()
				in := model.SimulateInboundInput{Channel: "website", From: fmt.Sprintf("order-lag-%d", c), Text: &text}
				if _, err := w.Resolver.Mutation().SimulateInbound(ctx, in); err != nil {
					t.Error(err)
					return
				}
				rmu.Lock()
				recorded[text] = start
				rmu.Unlock()
			}
		})
	}
	wg.Wait()
	total := conversations * perConversation
	deadline := time.Now().Add(2 * time.Minute)
	for len(rc.Events()) < total {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d deliveries arrived: a successor waits for a sweep that never comes", len(rc.Events()), total)
		}
		time.Sleep(10 * time.Millisecond)
	}

	mu.Lock()
	defer mu.Unlock()
	for conv, ns := range order {
		if !slices.IsSorted(ns) || len(ns) != perConversation {
			t.Errorf("conversation %s: %d deliveries, in order %v", conv, len(ns), slices.IsSorted(ns))
		}
	}
	var lags []time.Duration
	for text, at := range recorded {
		lags = append(lags, max(arrived[text].Sub(at), 0))
	}
	slices.Sort(lags)
	p50, p99 := lags[len(lags)/2], lags[len(lags)*99/100]
	t.Logf("%d deliveries: p50 lag %v, p99 %v, max %v", len(lags), p50, p99, lags[len(lags)-1])
	if p99 >= lagBound {
		t.Errorf("p99 delivery lag %v, want under %v", p99, time.Duration(lagBound))
	}
}
