package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// graphLatency is how long the Graph API stand-in takes to answer a send in
// BenchmarkLiveSendParallel: about what WhatsApp's Cloud API takes.
const graphLatency = 300 * time.Millisecond

// BenchmarkLiveSendParallel sends live WhatsApp templates through the HTTP
// API from 16, 64 and 256 clients at once, each client in a conversation
// of its own, to a Graph API stand-in (metatest) that answers every send
// after graphLatency; beside each, the same clients' sandbox replies, which
// call no provider, on the same machine in the same run. One workspace: its
// quota is taken by every live send (repo.CountMessage). It reports sends/s
// and the p50 and p99 of one send's answer; b.N sends in all, shared by the
// clients (-benchtime 2000x: 2000 sends each).
func BenchmarkLiveSendParallel(b *testing.B) {
	for _, clients := range []int{16, 64, 256} {
		for _, mode := range []string{"live", "sandbox"} {
			b.Run(fmt.Sprintf("clients=%d/%s", clients, mode), func(b *testing.B) {
				benchSends(b, clients, mode == "live")
			})
		}
	}
}

// benchSends runs b.N sends from clients at once and reports them.
func benchSends(b *testing.B, clients int, live bool) {
	quietLogs(b)
	api := resttest.New(b)
	withWorker(b, api, time.Hour)
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000,
		messages_limit = 100000000 WHERE id = 'ws_main'`)
	key := "test_all"
	if live {
		key = "live_all"
		connectProviders(api)
		graph := metatest.New(b)
		graph.Queue(metatest.Script{PathSuffix: "/messages", Delay: graphLatency, Times: -1})
		wa := whatsapp.New(graph.Config(10 * time.Second))
		api.Reconfigure(func(c *resttest.Config) { c.WhatsApp = wa })
		api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": wa} })
	}
	// The clients' own connections, kept alive: the benchmark measures the
	// server, not connection setup.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	bodies := make([][]byte, clients)
	for i := range clients {
		body := map[string]any{"channel": "whatsapp", "to": fmt.Sprintf("+1555071%04d", i),
			"whatsapp_account_id": "wa_main", "template": tpl("order_update", "B")}
		if !live {
			body = map[string]any{"conversation_id": startConv(api, map[string]any{"channel": "website",
				"from": fmt.Sprintf("visitor-bench-%d", i)}), "text": "benchmark"}
		}
		bodies[i], _ = json.Marshal(body)
	}
	send := func(body []byte) (time.Duration, error) {
		req, _ := http.NewRequest("POST", api.HTTP.URL+"/v1/messages", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+api.Key(key))
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			return 0, fmt.Errorf("send: %d %s", resp.StatusCode, raw)
		}
		return time.Since(start), nil
	}
	// One send per client first, all at once: the conversations exist
	// before the clock starts, as they do in the sandbox.
	var warm sync.WaitGroup
	for _, body := range bodies {
		warm.Go(func() {
			if _, err := send(body); err != nil {
				b.Error(err)
			}
		})
	}
	warm.Wait()
	if b.Failed() {
		b.FailNow()
	}
	work := make(chan struct{})
	var mu sync.Mutex
	var took []time.Duration
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range clients {
		wg.Go(func() {
			for range work {
				d, err := send(bodies[i])
				if err != nil {
					b.Error(err)
					continue
				}
				mu.Lock()
				took = append(took, d)
				mu.Unlock()
			}
		})
	}
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(len(took))/b.Elapsed().Seconds(), "sends/s")
	if len(took) > 0 {
		b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(took[len(took)*99/100].Milliseconds()), "p99-ms")
	}
}
