package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// floodCustomers is how many WhatsApp customers the flood's messages come
// from, in turn: each customer's messages must arrive in their order.
const floodCustomers = 50

// floodRate is the sustained rate of inbound messages a second.
const floodRate = 300

// floodWait bounds every wait of the flood.
const floodWait = 60 * time.Second

// BenchmarkMetaInboundFlood posts b.N single-message WhatsApp webhooks to
// POST /hooks/meta, signed as Meta signs them, from floodCustomers
// customers in turn, with one worker process's asynq server running the
// hook jobs and the webhook deliveries, and an endpoint subscribed to
// message.received at an httptest receiver. Every message must arrive
// there exactly once and each customer's in order. The lag runs from the
// hook's POST to its message.received's arrival.
//   - sustained: floodRate messages a second; reports p50-ms, p99-ms and
//     msgs/s (messages posted over the time until the last arrived).
//   - burst: as fast as floodCustomers clients post; reports burst-s (the
//     first POST to the last arrival) and p99-ms.
//
// Run with a fixed count, e.g.
// go test -run '^$' -bench MetaInboundFlood -benchtime 1500x ./rest
func BenchmarkMetaInboundFlood(b *testing.B) {
	b.Run("sustained", func(b *testing.B) {
		lags, span := metaFlood(b, floodRate)
		b.ReportMetric(floodPct(lags, 0.5), "p50-ms")
		b.ReportMetric(floodPct(lags, 0.99), "p99-ms")
		b.ReportMetric(float64(b.N)/span.Seconds(), "msgs/s")
	})
	b.Run("burst", func(b *testing.B) {
		lags, span := metaFlood(b, 0)
		b.ReportMetric(span.Seconds(), "burst-s")
		b.ReportMetric(floodPct(lags, 0.99), "p99-ms")
	})
}

// floodPct is the p-th quantile of sorted lags in milliseconds.
func floodPct(lags []time.Duration, p float64) float64 {
	return float64(lags[int(p*float64(len(lags)-1))].Microseconds()) / 1000
}

// metaFlood posts b.N hooks at rate a second (0: as fast as the customers'
// clients go), waits for every message.received, checks exactly once and
// each customer's order, and returns the lags, sorted, and the time from
// the first POST to the last arrival.
func metaFlood(b *testing.B, rate int) ([]time.Duration, time.Duration) {
	quietLogs(b)
	h := newMetaHooks(b)
	dbExec(b, h.API, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000,
		messages_limit = 100000000 WHERE id = 'ws_main'`)
	startFloodWorker(b, h)

	type arrival struct {
		at   time.Time
		text string
	}
	arrivals := make(chan arrival, b.N*2)
	rc := resttest.NewReceiver(b, func(_ int, r resttest.Request) int {
		if r.Type() == "message.received" {
			text, _ := r.Data()["text"].(string)
			arrivals <- arrival{time.Now(), text}
		}
		return 200
	})
	h.Want(h.Do("POST", "/v1/webhook-endpoints", "live_all", map[string]any{
		"url": rc.URL, "events": []string{"message.received"}}), 201, "")

	// Message i comes from customer i % floodCustomers; its text names it.
	texts := make([]string, b.N)
	bodies := make([][]byte, b.N)
	at := resttest.Epoch.Unix() - int64(b.N) - 60
	for i := range b.N {
		texts[i] = fmt.Sprintf("flood %d", i)
		raw, err := json.Marshal(floodHook(i%floodCustomers, i, texts[i], at+int64(i)))
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = raw
	}
	client := &http.Client{Timeout: floodWait, Transport: &http.Transport{
		MaxIdleConnsPerHost: floodCustomers, MaxConnsPerHost: floodCustomers}}
	posted := make([]time.Time, b.N)
	var wg sync.WaitGroup
	errs := make(chan error, floodCustomers)
	b.ResetTimer()
	start := time.Now()
	// One client a customer posts its messages one after another, each
	// at its time in the schedule (or at once, late or in a burst).
	for c := range floodCustomers {
		wg.Go(func() {
			for i := c; i < b.N; i += floodCustomers {
				if rate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
				}
				posted[i] = time.Now()
				if err := postFloodHook(client, h.HTTP.URL, bodies[i]); err != nil {
					errs <- fmt.Errorf("message %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}

	index := make(map[string]int, b.N)
	for i, t := range texts {
		index[t] = i
	}
	lags := make([]time.Duration, 0, b.N)
	seen := make([]int, b.N)
	last := make([]int, floodCustomers)
	for c := range last {
		last[c] = -1
	}
	var end time.Time
	deadline := time.After(floodWait)
	for len(lags) < b.N {
		select {
		case a := <-arrivals:
			i, ok := index[a.text]
			if !ok {
				b.Fatalf("message.received of an unknown text %q", a.text)
			}
			if seen[i]++; seen[i] > 1 {
				b.Fatalf("message %d arrived %d times", i, seen[i])
			}
			c := i % floodCustomers
			if i < last[c] {
				b.Fatalf("customer %d: message %d arrived after %d", c, i, last[c])
			}
			last[c] = i
			lags = append(lags, a.at.Sub(posted[i]))
			end = a.at
		case <-deadline:
			b.Fatalf("%d of %d messages arrived within %v", len(lags), b.N, floodWait)
		}
	}
	b.StopTimer()
	// A duplicate sent late would show here.
	time.Sleep(500 * time.Millisecond)
	if n := len(arrivals); n > 0 {
		b.Fatalf("%d message.received arrived beyond the %d messages", n, b.N)
	}
	slices.Sort(lags)
	return lags, end.Sub(start)
}

// floodHook is a messages change of wa_main carrying one text message of
// customer c, as Meta sends it:
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples#text-messages
func floodHook(c, i int, text string, at int64) map[string]any {
	waID := fmt.Sprintf("1555%07d", 2000000+c)
	v := waValue("messages", map[string]any{"from": waID, "id": fmt.Sprintf("wamid.FLOOD%d", i),
		"timestamp": itoa(at), "type": "text", "text": map[string]any{"body": text}})
	v["contacts"] = []any{map[string]any{"profile": map[string]any{"name": fmt.Sprintf("Customer %d", c)}, "wa_id": waID}}
	return waChange("messages", v)
}

// postFloodHook posts a signed payload to /hooks/meta and wants 200.
func postFloodHook(client *http.Client, base string, raw []byte) error {
	req, err := http.NewRequest("POST", base+"/hooks/meta", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", signature(raw))
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("POST /hooks/meta: %d", resp.StatusCode)
	}
	return nil
}

// startFloodWorker gives the API a jobs client on a queue of its own and
// starts what msgsvc's worker runs for an inbound message: its asynq
// server with every handler (Meta hooks, webhooks, AI passes) and a
// fan-out that attempts what it finds due at once (webhook.Config.Here).
func startFloodWorker(b *testing.B, h *metaHooks) {
	opt, err := asynq.ParseRedisURI(resttest.RedisURL())
	if err != nil {
		b.Fatal(err)
	}
	queue := resttest.NewQueueName()
	client := jobs.NewClient(opt)
	client.Queue = queue
	b.Cleanup(func() {
		_ = client.Close()
		resttest.DropQueue(b, queue)
		resttest.DropQueue(b, jobs.WebhookQueue(queue))
	})
	ctx, stop := context.WithCancel(context.Background())
	b.Cleanup(stop)
	h.Reconfigure(func(c *resttest.Config) { c.Jobs = client })
	h.Reconfigure(func(c *resttest.Config) { c.Webhooks = &webhook.Config{AllowInsecure: true, Here: ctx} })
	srv := jobs.NewServerOn(opt, 10, queue)
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{Webhooks: h.Resolver.Webhooks, AI: h.Resolver.AI, Meta: h.Resolver.MetaHooks})
	if err := srv.Start(mux); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Shutdown)
}
