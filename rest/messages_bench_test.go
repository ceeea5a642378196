package rest_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkSandboxSend sends sandbox replies through the HTTP API, with the
// delivery job scheduled in Redis as in production. Allocations count the
// client side of the request too.
func BenchmarkSandboxSend(b *testing.B) {
	api := resttest.New(b)
	withWorker(b, api, time.Hour) // scheduled, never due during the run
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000 WHERE id = 'ws_main'`)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-bench"})
	body := map[string]any{"conversation_id": conv, "text": "benchmark"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := sendMsg(api, "test_all", body); r.Status != 201 {
			b.Fatalf("send: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
}
