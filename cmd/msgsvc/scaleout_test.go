package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/webhooksig"
)

// The scale-out run (issue 16 item 6; docs/performance.md, Scale-out run):
// the same sandbox send load against topology A, one `serve` and one
// `worker`, then B, two `serve` and three `worker` on one Postgres and one
// Redis, each on a database and queue of its own. Only with
// MSGSVC_SCALEOUT=1 (make scaleout): it is a measurement, not a unit test.
// MSGSVC_SCALEOUT_SECONDS, _CONNS and _CONVERSATIONS change the load.

const scaleKey = "svc_test_ScaleScaleScaleScaleScaleScale01"

// scaleLoad is the load every topology gets.
type scaleLoad struct {
	conversations, conns int
	duration             time.Duration
}

// scaleResult is what one topology did.
type scaleResult struct {
	name                        string
	sends, events               int
	sendRate, eventRate         float64
	sendP50, sendP99            time.Duration
	lagP50, lagP99, lagMax      time.Duration
	drain                       time.Duration
	duplicates, missing, orders int
	perServer                   []int
	cpu                         string
}

func (r scaleResult) String() string {
	return fmt.Sprintf("%s: sends=%d %v %.1f/s (p50 %s, p99 %s); events=%d %.1f/s end to end, lag p50 %s p99 %s max %s; "+
		"drained %s after the load; duplicates=%d missing=%d order_violations=%d; cpu %s",
		r.name, r.sends, r.perServer, r.sendRate, ms(r.sendP50), ms(r.sendP99), r.events, r.eventRate, ms(r.lagP50), ms(r.lagP99),
		ms(r.lagMax), ms(r.drain), r.duplicates, r.missing, r.orders, r.cpu)
}

func TestScaleOut(t *testing.T) {
	if os.Getenv("MSGSVC_SCALEOUT") != "1" {
		t.Skip("a measurement: MSGSVC_SCALEOUT=1 (make scaleout) runs it")
	}
	envInt := func(name string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
			return n
		}
		return def
	}
	load := scaleLoad{conversations: envInt("MSGSVC_SCALEOUT_CONVERSATIONS", 200),
		conns: envInt("MSGSVC_SCALEOUT_CONNS", 16), duration: time.Duration(envInt("MSGSVC_SCALEOUT_SECONDS", 15)) * time.Second}
	load.conns = min(load.conns, load.conversations)
	t.Logf("load: %d connections for %s over %d sandbox website conversations, split across the servers",
		load.conns, load.duration, load.conversations)
	var results []scaleResult
	for _, top := range []struct {
		name            string
		serves, workers int
	}{{"A (1 serve, 1 worker)", 1, 1}, {"B (2 serve, 3 worker)", 2, 3}} {
		t.Run(top.name[:1], func(t *testing.T) {
			r := runTopology(t, load, top.serves, top.workers)
			r.name = top.name
			t.Log(r)
			results = append(results, r)
		})
	}
	if len(results) == 2 {
		a, b := results[0], results[1]
		t.Logf("B over A: sends %.2fx, events end to end %.2fx, lag p99 %s vs %s",
			b.sendRate/a.sendRate, b.eventRate/a.eventRate, ms(b.lagP99), ms(a.lagP99))
		for _, r := range results {
			t.Log(r)
		}
	}
}

// runTopology starts serves API and workers worker processes on a fresh
// installation, drives the load through every server, waits for every
// webhook and checks them.
func runTopology(t *testing.T, load scaleLoad, serves, workers int) scaleResult {
	in := newInstallation(t, map[string]string{"MSGSVC_SANDBOX_DELIVERY_DELAY": "1s",
		"MSGSVC_SWEEP_EVERY": "2s", "MSGSVC_SWEEP_GRACE": "30s"})
	fixture := filepath.Join(t.TempDir(), "scale.json")
	if err := os.WriteFile(fixture, scaleFixture(load.conversations), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := in.start("seed", "--file", fixture); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("seed failed:\n%s", p.logs.String())
	}
	var procs []*process
	for range workers {
		procs = append(procs, in.start("worker"))
	}
	var urls []string
	for i := range serves {
		addr := in.addr
		if i > 0 {
			addr = freeAddr(t)
		}
		procs = append(procs, in.serveOn(addr, "serve"))
		urls = append(urls, "http://"+addr)
	}
	secret := newWebhookSecret(6)
	rc := newScaleReceiver(t, secret)
	ep := in.must(201, "POST", "/v1/webhook-endpoints", scaleKey, map[string]any{
		"url": rc.URL, "events": []string{"*"}, "testEvents": true, "secret": secret})
	if ep["status"] != "active" {
		t.Fatalf("endpoint not verified: %v", ep)
	}
	var fromSeq int64
	if err := in.store.DB.Get(&fromSeq, `SELECT coalesce(max(seq), 0) FROM events`); err != nil {
		t.Fatal(err)
	}

	cpu0, self0 := procsCPU(procs), selfCPU()
	busy0, all0 := machineCPU()
	loadavg := loadAverage()
	start := time.Now()
	sent := driveLoad(t, urls, load)
	loadEnd := time.Now()
	waitDrained(t, in, rc, sent, fromSeq, ep["id"])
	busy1, all1 := machineCPU()
	cpu := fmt.Sprintf("over %s: msgsvc processes %s, this test (load, receiver) %s; machine %.0f%% busy on %d cores, load average %s before",
		ms(time.Since(start)), ms(procsCPU(procs)-cpu0), ms(selfCPU()-self0),
		100*float64(busy1-busy0)/float64(max(all1-all0, 1)), runtime.NumCPU(), loadavg)

	r := checkScaleRun(t, in.store, rc, sent, fromSeq)
	r.cpu, r.perServer = cpu, sent.perServer
	r.sendRate = float64(r.sends) / loadEnd.Sub(start).Seconds()
	r.sendP50, r.sendP99 = percentile(sent.latencies, .5), percentile(sent.latencies, .99)
	last := rc.last()
	r.eventRate = float64(r.events) / last.Sub(start).Seconds()
	r.drain = max(last.Sub(loadEnd), 0)
	lags := rc.lagsCopy()
	r.lagP50, r.lagP99, r.lagMax = percentile(lags, .5), percentile(lags, .99), percentile(lags, 1)
	return r
}

// scaleFixture is a workspace with the test key scaleKey, no practical rate
// limit or quota, and n website conversations conv_s1 … conv_sn, as
// /work/shared's fixture-gen.py writes them.
func scaleFixture(n int) []byte {
	ts := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	convs := make([]map[string]any, n)
	for i := range convs {
		convs[i] = map[string]any{"id": fmt.Sprintf("conv_s%d", i+1), "livemode": false, "channel": "website",
			"account_id": "web_scale", "contact_id": "ct_scale", "status": "open", "mode": "human", "created_at": ts,
			"messages": []map[string]any{{"id": fmt.Sprintf("msg_s%d", i+1), "direction": "inbound", "text": "hi", "created_at": ts}}}
	}
	ws := map[string]any{"id": "ws_scale", "name": "Scale", "plan": "enterprise", "status": "active",
		"owner_email": "owner@scale.test", "messages_limit": 100000000,
		"rate_limit":    map[string]int{"per_second": 1000000, "per_minute": 60000000},
		"websites":      []map[string]any{{"id": "web_scale", "name": "Scale", "domains": []string{"https://scale.test"}}},
		"agents":        []map[string]any{{"id": "usr_scale", "name": "S", "email": "s@scale.test", "active": true}},
		"keys":          []map[string]any{{"id": "key_scale", "secret": scaleKey, "scopes": []string{"*"}}},
		"contacts":      []map[string]any{{"id": "ct_scale", "livemode": false, "name": "Scale", "email": "c@scale.test"}},
		"conversations": convs}
	raw, _ := json.Marshal(map[string]any{"workspaces": []any{ws}})
	return raw
}

// scaleSends is what the load sent: per conversation the ids of its
// messages in the order the client sent them (one send of a conversation
// at a time), and every send's latency.
type scaleSends struct {
	byConv    map[string][]string
	latencies []time.Duration
	perServer []int
}

// driveLoad runs load.conns closed-loop senders for load.duration. Sender g
// owns conversations g, g+conns, …, so a conversation's sends are
// sequential, and its k-th send goes to server (conversation+k) mod
// servers: consecutive messages of one conversation go through different
// servers. Any answer but 201 fails the run.
func driveLoad(t *testing.T, urls []string, load scaleLoad) scaleSends {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: load.conns, MaxConnsPerHost: load.conns}}
	out := scaleSends{byConv: map[string][]string{}, perServer: make([]int, len(urls))}
	var mu sync.Mutex
	deadline := time.Now().Add(load.duration)
	var wg sync.WaitGroup
	for g := range load.conns {
		wg.Go(func() {
			var owned []int
			for c := g; c < load.conversations; c += load.conns {
				owned = append(owned, c)
			}
			count := map[int]int{}
			for k := 0; time.Now().Before(deadline); k++ {
				c := owned[k%len(owned)]
				conv := fmt.Sprintf("conv_s%d", c+1)
				server := (c + count[c]) % len(urls)
				url := urls[server]
				count[c]++
				began := time.Now()
				id, err := scaleSend(client, url, conv, fmt.Sprintf("scale %s %d", conv, count[c]))
				took := time.Since(began)
				if err != nil {
					t.Errorf("send to %s via %s: %v", conv, url, err)
					return
				}
				mu.Lock()
				out.byConv[conv] = append(out.byConv[conv], id)
				out.latencies = append(out.latencies, took)
				out.perServer[server]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// scaleSend is one sandbox POST /v1/messages; it returns the message id.
func scaleSend(client *http.Client, base, conv, text string) (string, error) {
	body, _ := json.Marshal(map[string]string{"conversation_id": conv, "text": text})
	req, err := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+scaleKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != 201 || json.Unmarshal(raw, &out) != nil || out.Data.ID == "" {
		return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	return out.Data.ID, nil
}

// scaleReceiver is a webhook endpoint that verifies each signature and
// records every event's arrivals, the order of first arrivals and the lag
// from the envelope's created_at to receipt.
type scaleReceiver struct {
	URL    string
	secret string

	mu        sync.Mutex
	count     map[string]int
	order     []scaleArrival
	lags      []time.Duration
	badSig    int
	lastEvent time.Time
}

// scaleArrival is an event's first arrival.
type scaleArrival struct {
	id, typ, messageID string
	createdAt          time.Time
}

func newScaleReceiver(t *testing.T, secret string) *scaleReceiver {
	rc := &scaleReceiver{secret: secret, count: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		event, err := webhooksig.ParseRequest(r, rc.secret)
		now := time.Now()
		if err != nil {
			rc.mu.Lock()
			rc.badSig++
			rc.mu.Unlock()
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		if event.Type == "endpoint.verification" {
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": event.Challenge()})
			return
		}
		var data struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		}
		_ = json.Unmarshal(event.Data, &data)
		rc.mu.Lock()
		if rc.count[event.ID]++; rc.count[event.ID] == 1 {
			a := scaleArrival{id: event.ID, typ: event.Type, createdAt: event.CreatedAt}
			if data.Object == "message" {
				a.messageID = data.ID
			}
			rc.order = append(rc.order, a)
			rc.lags = append(rc.lags, now.Sub(event.CreatedAt))
		}
		rc.lastEvent = now
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

func (rc *scaleReceiver) unique() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.order)
}

func (rc *scaleReceiver) last() time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.lastEvent
}

func (rc *scaleReceiver) lagsCopy() []time.Duration {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.lags)
}

// waitDrained waits until every sent message is delivered (the sandbox
// step ran), every event is fanned out and no delivery to the endpoint is
// still owed, and the receiver has as many events as the database.
func waitDrained(t *testing.T, in *installation, rc *scaleReceiver, sent scaleSends, fromSeq int64, endpoint any) {
	n := 0
	for _, ids := range sent.byConv {
		n += len(ids)
	}
	eventually(t, 10*time.Minute, "the load to drain", func() (bool, string) {
		var s struct {
			Undelivered int `db:"undelivered"`
			Unfanned    int `db:"unfanned"`
			Owed        int `db:"owed"`
			Events      int `db:"events"`
		}
		err := in.store.DB.Get(&s, `SELECT
			(SELECT count(*) FROM messages WHERE workspace_id = 'ws_scale' AND direction = 'outbound' AND status <> 'delivered') AS undelivered,
			(SELECT count(*) FROM events WHERE seq > $1 AND NOT fanned_out) AS unfanned,
			(SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $2 AND status IN ('pending', 'retrying')) AS owed,
			(SELECT count(*) FROM events WHERE seq > $1 AND workspace_id = 'ws_scale') AS events`, fromSeq, endpoint)
		got := rc.unique()
		return err == nil && s.Undelivered == 0 && s.Unfanned == 0 && s.Owed == 0 && got >= s.Events,
			fmt.Sprintf("%d sends: %d not delivered, %d events not fanned out, %d deliveries owed, %d of %d events received (%v)",
				n, s.Undelivered, s.Unfanned, s.Owed, got, s.Events, err)
	})
}

// checkScaleRun compares what arrived with the database and the load:
// every event recorded during the load arrived exactly once, each
// conversation's events in the order recorded (seq; docs/api.md, Order)
// with non-decreasing created_at, and its message.sent events in the order
// the client sent its messages. Any difference fails the test.
func checkScaleRun(t *testing.T, store *repo.Store, rc *scaleReceiver, sent scaleSends, fromSeq int64) scaleResult {
	var rows []struct {
		ID   string  `db:"id"`
		Seq  int64   `db:"seq"`
		Conv *string `db:"conversation_id"`
	}
	if err := store.DB.Select(&rows, `SELECT id, seq, conversation_id FROM events
		WHERE seq > $1 AND workspace_id = 'ws_scale'`, fromSeq); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		seq  int64
		conv string
	}
	recorded := map[string]rec{}
	for _, r := range rows {
		recorded[r.ID] = rec{r.Seq, deref(r.Conv)}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var r scaleResult
	for id, n := range rc.count {
		r.duplicates += n - 1
		if _, ok := recorded[id]; !ok {
			t.Errorf("event %s arrived but is not one of the load's", id)
		}
	}
	r.missing = len(recorded) - len(rc.order)
	violation := func(format string, args ...any) {
		if r.orders++; r.orders <= 10 { // the first ten say enough
			t.Errorf(format, args...)
		}
	}
	lastSeq, lastAt, sentOrder := map[string]int64{}, map[string]time.Time{}, map[string][]string{}
	for _, a := range rc.order {
		conv := recorded[a.id].conv
		if conv == "" {
			continue
		}
		if seq := recorded[a.id].seq; seq < lastSeq[conv] {
			violation("%s: event %s (seq %d) arrived after seq %d", conv, a.id, seq, lastSeq[conv])
		} else {
			lastSeq[conv] = seq
		}
		if a.createdAt.Before(lastAt[conv]) {
			violation("%s: event %s created %s arrived after one created %s", conv, a.id, a.createdAt, lastAt[conv])
		} else {
			lastAt[conv] = a.createdAt
		}
		if a.typ == "message.sent" {
			sentOrder[conv] = append(sentOrder[conv], a.messageID)
		}
	}
	for conv, ids := range sent.byConv {
		r.sends += len(ids)
		if !slices.Equal(ids, sentOrder[conv]) {
			violation("%s: messages sent %v, message.sent arrived for %v", conv, ids, sentOrder[conv])
		}
	}
	r.events = len(rc.order)
	if r.duplicates+r.missing+r.orders+rc.badSig > 0 {
		t.Errorf("%d duplicates, %d events missing, %d order violations, %d bad signatures",
			r.duplicates, r.missing, r.orders, rc.badSig)
	}
	return r
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// procsCPU is the user and system CPU time the processes have used so far
// (Linux /proc; 0 elsewhere).
func procsCPU(procs []*process) time.Duration {
	var total time.Duration
	for _, p := range procs {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces): state is
		// the 3rd field, utime and stime the 14th and 15th.
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(u+s) * 10 * time.Millisecond // USER_HZ 100
		}
	}
	return total
}

// machineCPU is the busy and total jiffies of every core so far (the
// first line of /proc/stat; busy is all but idle and iowait).
func machineCPU() (busy, total int64) {
	raw, _ := os.ReadFile("/proc/stat")
	line, _, _ := strings.Cut(string(raw), "\n")
	for i, f := range strings.Fields(line) {
		if i == 0 || i > 8 { // "cpu"; guest time is in user already
			continue
		}
		n, _ := strconv.ParseInt(f, 10, 64)
		total += n
		if i != 4 && i != 5 { // cpu user nice system idle iowait …
			busy += n
		}
	}
	return busy, total
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(raw) + " ? ? ?")[:3], " ")
}

// selfCPU is the CPU time this test process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile is the q-quantile of ds (0 for none).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// ms rounds a duration for the report.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
