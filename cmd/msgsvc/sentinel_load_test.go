package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/ops/redisconn/redistest"
)

// resumeBound is how soon after the Sentinels promote the replica every
// webhook owed must be on its way again.
const resumeBound = 10 * time.Second

// A Sentinel failover under load: one `serve` and two `worker` reach Redis
// through three Sentinels (REDIS_URL=redis-sentinel://…) while senders keep
// sending; the primary is killed (SIGKILL) halfway. Every send succeeds
// (retried with its Idempotency-Key while Redis is away), every event
// arrives exactly once, each conversation's in order, and each arrives
// within resumeBound of the later of its creation and the promotion. The
// sweep's grace is a minute, so a delivery whose task died with the
// primary, or could not be enqueued while it was away, arrives in time
// only through the worker's resweep (on the queue server's change, or
// after a failed hand-over).
func TestSentinelFailoverUnderLoad(t *testing.T) {
	g := redistest.StartGroup(t, 3, time.Second)
	in := newInstallation(t, map[string]string{"REDIS_URL": g.URL(),
		"MSGSVC_SWEEP_EVERY": "500ms", "MSGSVC_SWEEP_GRACE": "1m"})
	const conversations, conns = 24, 4
	fixture := filepath.Join(t.TempDir(), "scale.json")
	if err := os.WriteFile(fixture, scaleFixture(conversations), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := in.start("seed", "--file", fixture); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("seed failed:\n%s", p.logs.String())
	}
	in.start("worker")
	in.start("worker")
	in.serve("serve")
	secret := newWebhookSecret(7)
	rc := newScaleReceiver(t, secret)
	ep := in.must(201, "POST", "/v1/webhook-endpoints", scaleKey, map[string]any{
		"url": rc.URL, "events": []string{"*"}, "testEvents": true, "secret": secret})
	var fromSeq int64
	if err := in.store.DB.Get(&fromSeq, `SELECT coalesce(max(seq), 0) FROM events`); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var retried atomic.Int64
	sentCh := make(chan scaleSends, 1)
	go func() { sentCh <- sendUntil(t, in.URL(), conversations, conns, stop, &retried) }()
	time.Sleep(4 * time.Second)
	killed := time.Now()
	if err := g.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
	promoted := g.WaitPromoted(t, 30*time.Second)
	time.Sleep(8 * time.Second)
	close(stop)
	sent := <-sentCh
	if t.Failed() {
		t.FailNow()
	}
	waitDrained(t, in, rc, sent, fromSeq, ep["id"])
	r := checkScaleRun(t, in.store, rc, sent, fromSeq)

	rc.mu.Lock()
	defer rc.mu.Unlock()
	var worst time.Duration
	var late int
	for _, a := range rc.order {
		wait := a.arrived.Sub(later(a.createdAt, promoted))
		worst = max(worst, wait)
		if wait > resumeBound {
			if late++; late <= 5 {
				t.Errorf("event %s (%s, created %s) arrived %s after the later of its creation and the promotion",
					a.id, a.typ, a.createdAt.Format(time.StampMilli), ms(wait))
			}
		}
	}
	t.Logf("promotion %s after the kill; %d sends (%d answers retried), %d events, %d duplicates; "+
		"worst wait past the later of creation and promotion %s; %d over %s",
		ms(promoted.Sub(killed)), r.sends, retried.Load(), r.events, r.duplicates, ms(worst), late, resumeBound)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sendUntil runs conns senders over conversations conversations until stop
// closes. Sender g owns conversations g, g+conns, …, and sends to one at a
// time, pausing 100 ms between sends (a steady load the two cores keep up
// with, so a late event means a stall, not a backlog). A send answered
// otherwise than 201 (Redis away) is repeated with its Idempotency-Key
// until it succeeds, for up to a minute.
func sendUntil(t *testing.T, base string, conversations, conns int, stop <-chan struct{}, retried *atomic.Int64) scaleSends {
	client := &http.Client{Timeout: 30 * time.Second}
	out := scaleSends{byConv: map[string][]string{}, perServer: []int{0}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range conns {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				c := g + conns*(k%((conversations-g+conns-1)/conns))
				conv := fmt.Sprintf("conv_s%d", c+1)
				key := fmt.Sprintf("failover-%s-%d", conv, k)
				began := time.Now()
				id, err := scaleSend(client, base, conv, "failover "+key, key)
				for err != nil && time.Since(began) < time.Minute {
					retried.Add(1)
					time.Sleep(100 * time.Millisecond)
					id, err = scaleSend(client, base, conv, "failover "+key, key)
				}
				if err != nil {
					t.Errorf("send to %s: %v", conv, err)
					return
				}
				mu.Lock()
				out.byConv[conv] = append(out.byConv[conv], id)
				out.latencies = append(out.latencies, time.Since(began))
				out.perServer[0]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}
