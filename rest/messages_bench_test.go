package rest_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkSandboxSend sends sandbox replies through the HTTP API, with the
// announcements going to Redis and a worker's sandbox loop running, as in
// production (its passes find nothing due: the clock stands still).
// Allocations count the client side of the request too.
func BenchmarkSandboxSend(b *testing.B) {
	api := resttest.New(b)
	withWorker(b, api, time.Hour) // nothing comes due during the run
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000 WHERE id = 'ws_main'`)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-bench"})
	body := map[string]any{"conversation_id": conv, "text": "benchmark"}
	stmts := api.Store.Statements()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := sendMsg(api, "test_all", body); r.Status != 201 {
			b.Fatalf("send: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
	b.ReportMetric(float64(api.Store.Statements()-stmts)/float64(b.N), "stmts/op")
}

// BenchmarkSandboxSendParallel is the same send from 8 clients at once, each
// on a conversation of its own, as a busy integration sends: throughput, not
// one client's latency.
func BenchmarkSandboxSendParallel(b *testing.B) {
	api := resttest.New(b)
	withWorker(b, api, time.Hour)
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000 WHERE id = 'ws_main'`)
	var next atomic.Int64
	stmts := api.Store.Statements()
	b.ReportAllocs()
	b.SetParallelism(4) // with GOMAXPROCS 2: 8 clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conv := startConv(api, map[string]any{"channel": "website", "from": fmt.Sprintf("visitor-bench-%d", next.Add(1))})
		body := map[string]any{"conversation_id": conv, "text": "benchmark"}
		for pb.Next() {
			if r := sendMsg(api, "test_all", body); r.Status != 201 {
				b.Errorf("send: %d %s", r.Status, r.Raw)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
	b.ReportMetric(float64(api.Store.Statements()-stmts)/float64(b.N), "stmts/op")
}
