package rest_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkReadConversation is GET /v1/conversations/{id} as a busy
// integration polls it, with the key cache of a serving process.
// Allocations count the client side of the request too.
func BenchmarkReadConversation(b *testing.B) {
	api := resttest.New(b)
	api.Reconfigure(func(c *resttest.Config) {
		c.KeyCache = &auth.CachedKeys{Store: api.Store, Clock: api.Clock.Now, TTL: time.Hour}
	})
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000 WHERE id = 'ws_main'`)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-bench"})
	stmts := api.Store.Statements()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := api.Do("GET", "/v1/conversations/"+conv, "test_all", nil); r.Status != 200 {
			b.Fatalf("read: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
	b.ReportMetric(float64(api.Store.Statements()-stmts)/float64(b.N), "stmts/op")
}
