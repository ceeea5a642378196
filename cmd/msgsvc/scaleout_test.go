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
	"github.com/msgsvc/msgsvc/webhooksig"
)

// The scale-out run (docs/performance.md, The scale-out run): the same
// sandbox send load against topology A, one `serve` and one `worker`, then
// B, two `serve` and two `worker` on one Postgres and one Redis, each on a
// database and queue of its own. Only with MSGSVC_SCALEOUT=1 (make
// scaleout): it is a measurement, not a unit test. MSGSVC_SCALEOUT_SECONDS,
// _CONNS and _CONVERSATIONS change the load, _ROUNDS repeats it (A B B A
// …), _PROFILE names a directory for a CPU profile of every process over
// the load. Any duplicate, missing event, order violation, bad signature
// or failed send fails it; speed and CPU per 1,000 sends are reported only.

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
	// cpuPer1k is the CPU seconds of msgsvc's processes and of Postgres
	// per 1,000 sends, from the start of the load to the drain.
	cpuPer1k, msgsvcPer1k, pgPer1k float64
}

func (r scaleResult) String() string {
	return fmt.Sprintf("%s: sends=%d %v %.1f/s (p50 %s, p99 %s); events=%d %.1f/s end to end, lag p50 %s p99 %s max %s; "+
		"drained %s after the load; duplicates=%d missing=%d order_violations=%d; CPU per 1,000 sends %.2f s (msgsvc %.2f s, postgres %.2f s); %s",
		r.name, r.sends, r.perServer, r.sendRate, ms(r.sendP50), ms(r.sendP99), r.events, r.eventRate, ms(r.lagP50), ms(r.lagP99),
		ms(r.lagMax), ms(r.drain), r.duplicates, r.missing, r.orders, r.cpuPer1k, r.msgsvcPer1k, r.pgPer1k, r.cpu)
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
	type topology struct {
		name            string
		serves, workers int
	}
	a, b := topology{"A (1 serve, 1 worker)", 1, 1}, topology{"B (2 serve, 2 worker)", 2, 2}
	rates := map[string][][3]float64{} // per topology: sends/s, events/s, CPU s per 1,000 sends
	var lines []string
	for round := range envInt("MSGSVC_SCALEOUT_ROUNDS", 1) {
		order := []topology{a, b}
		if round%2 == 1 { // A B B A …: drift of the machine weighs on both
			order = []topology{b, a}
		}
		for _, top := range order {
			t.Run(top.name[:1], func(t *testing.T) {
				name := fmt.Sprintf("%s round %d", top.name, round+1)
				r := runTopology(t, load, top.serves, top.workers, fmt.Sprintf("%s%d", top.name[:1], round+1))
				r.name = name
				t.Log(r)
				lines = append(lines, r.String())
				rates[top.name] = append(rates[top.name], [3]float64{r.sendRate, r.eventRate, r.cpuPer1k})
			})
		}
	}
	for _, l := range lines {
		t.Log(l)
	}
	ra, rb := medians(rates[a.name]), medians(rates[b.name])
	if len(rates[a.name]) > 0 && len(rates[b.name]) > 0 {
		t.Logf("medians: A sends %.1f/s events %.1f/s, CPU %.2f s per 1,000 sends; B sends %.1f/s events %.1f/s, CPU %.2f s per 1,000 sends; "+
			"B over A: sends %.2fx, events end to end %.2fx, CPU per send %.2fx",
			ra[0], ra[1], ra[2], rb[0], rb[1], rb[2], rb[0]/ra[0], rb[1]/ra[1], rb[2]/ra[2])
	}
}

// medians is the median of each column.
func medians(rows [][3]float64) [3]float64 {
	var out [3]float64
	for i := range out {
		col := make([]float64, len(rows))
		for j, r := range rows {
			col[j] = r[i]
		}
		slices.Sort(col)
		if n := len(col); n > 0 {
			out[i] = (col[(n-1)/2] + col[n/2]) / 2
		}
	}
	return out
}

// runTopology starts serves API and workers worker processes on a fresh
// installation, drives the load through every server, waits for every
// webhook and checks them.
func runTopology(t *testing.T, load scaleLoad, serves, workers int, name string) scaleResult {
	in := newInstallation(t, map[string]string{"MSGSVC_SANDBOX_DELIVERY_DELAY": "1s", "MSGSVC_DB_MAX_CONNS": "15",
		"MSGSVC_SWEEP_EVERY": "2s", "MSGSVC_SWEEP_GRACE": "30s"})
	fixture := filepath.Join(t.TempDir(), "scale.json")
	if err := os.WriteFile(fixture, scaleFixture(load.conversations), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := in.start("seed", "--file", fixture); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("seed failed:\n%s", p.logs.String())
	}
	var serveProcs, workerProcs []*process
	for range workers {
		workerProcs = append(workerProcs, in.start("worker"))
	}
	var urls []string
	for i := range serves {
		addr := in.addr
		if i > 0 {
			addr = freeAddr(t)
		}
		serveProcs = append(serveProcs, in.serveOn(addr, "serve"))
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

	cpu := func() scaleCPU { return measureCPU(t, in.store, serveProcs, workerProcs) }
	// Backends report their counters to pg_stat_database within 10 s of
	// going idle, so the idle window before the load and the wait after
	// the drain are 11 s.
	idle0 := cpu()
	time.Sleep(11 * time.Second)
	cpu0, db0, tables0, loadavg := cpu(), dbStats(t, in.store), tableReads(t, in.store), loadAverage()
	start := time.Now()
	stopConns, peakConns := sampleConns(in.store)
	profiled := profileAll(t, load.duration, name, serveProcs, workerProcs)
	sent := driveLoad(t, urls, load)
	loadEnd := time.Now()
	waitDrained(t, in, rc, sent, fromSeq, ep["id"])
	used, wall := cpu().minus(cpu0), time.Since(start)
	stopConns()
	profiled()

	r := checkScaleRun(t, in.store, rc, sent, fromSeq)
	time.Sleep(11 * time.Second)
	db := dbStats(t, in.store).minus(db0)
	idle := cpu0.minus(idle0)
	r.cpu = fmt.Sprintf("over %s, %s; at most %d connections to the database; idle for 11 s before: serve+worker %s, postgres backends %s; load average %s before; "+
		"database per send: %.1f commits, %.2f rollbacks, %.0f rows read, %.1f written",
		ms(wall), used, *peakConns, ms(idle.msgsvc()), ms(idle.pg()), loadavg,
		db[0]/float64(r.sends), db[1]/float64(r.sends), db[2]/float64(r.sends), db[3]/float64(r.sends))
	r.cpu += "; most rows read per send: " + topReads(tables0, tableReads(t, in.store), r.sends)
	r.perServer = sent.perServer
	per1k := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(max(r.sends, 1)) }
	r.cpuPer1k, r.msgsvcPer1k, r.pgPer1k = per1k(used.msgsvc()+used.pg()), per1k(used.msgsvc()), per1k(used.pg())
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
// limit or quota, and n website conversations conv_s1 … conv_sn (each with
// an inbound message), in the shape of the maintainers' load fixtures.
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
				id, err := scaleSend(client, url, conv, fmt.Sprintf("scale %s %d", conv, count[c]), "")
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

// scaleSend is one sandbox POST /v1/messages, with an Idempotency-Key
// unless key is empty; it returns the message id.
func scaleSend(client *http.Client, base, conv, text, key string) (string, error) {
	body, _ := json.Marshal(map[string]string{"conversation_id": conv, "text": text})
	req, err := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+scaleKey)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
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
	createdAt, arrived time.Time
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
			a := scaleArrival{id: event.ID, typ: event.Type, createdAt: event.CreatedAt, arrived: now}
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
			(SELECT count(*) FROM events_unfanned WHERE seq > $1) AS unfanned,
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

// scaleCPU is CPU time used so far (Linux /proc): by the serve and worker
// processes, by the Postgres backends of the installation's database (those
// connected when measured: a backend that closed in between took its time
// with it), by this test process (load and receiver), and by the machine.
type scaleCPU struct {
	serve, worker, self time.Duration
	postgres            map[int]time.Duration
	busy, total         int64
}

func measureCPU(t *testing.T, store *repo.Store, serves, workers []*process) scaleCPU {
	c := scaleCPU{self: selfCPU(), postgres: map[int]time.Duration{}}
	for _, p := range serves {
		c.serve += pidCPU(p.cmd.Process.Pid)
	}
	for _, p := range workers {
		c.worker += pidCPU(p.cmd.Process.Pid)
	}
	var pids []int
	if err := store.DB.Select(&pids, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		c.postgres[pid] = pidCPU(pid)
	}
	c.busy, c.total = machineCPU()
	return c
}

// minus is the CPU used between b and c.
func (c scaleCPU) minus(b scaleCPU) scaleCPU {
	d := scaleCPU{serve: c.serve - b.serve, worker: c.worker - b.worker, self: c.self - b.self,
		postgres: map[int]time.Duration{}, busy: c.busy - b.busy, total: c.total - b.total}
	for pid, v := range c.postgres {
		d.postgres[pid] = v - b.postgres[pid]
	}
	return d
}

func (c scaleCPU) msgsvc() time.Duration { return c.serve + c.worker }

func (c scaleCPU) pg() time.Duration {
	var pg time.Duration
	for _, v := range c.postgres {
		pg += v
	}
	return pg
}

// String reads a difference.
func (c scaleCPU) String() string {
	pg := c.pg()
	return fmt.Sprintf("CPU: serve %s, worker %s, postgres backends %s, this test %s; machine %.0f%% busy on %d cores",
		ms(c.serve), ms(c.worker), ms(pg), ms(c.self), 100*float64(c.busy)/float64(max(c.total, 1)), runtime.NumCPU())
}

// scaleDB is the installation database's commits, rollbacks, rows read
// (returned by scans and fetched by index) and rows written so far.
type scaleDB [4]float64

func dbStats(t *testing.T, store *repo.Store) scaleDB {
	var row struct {
		Commits   float64 `db:"xact_commit"`
		Rollbacks float64 `db:"xact_rollback"`
		Read      float64 `db:"read"`
		Written   float64 `db:"written"`
	}
	if err := store.DB.Get(&row, `SELECT xact_commit, xact_rollback, tup_returned + tup_fetched AS read,
		tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	return scaleDB{row.Commits, row.Rollbacks, row.Read, row.Written}
}

func (d scaleDB) minus(b scaleDB) scaleDB {
	for i := range d {
		d[i] -= b[i]
	}
	return d
}

// sampleConns counts the installation database's connections every 100 ms
// until stop is called; peak is the most seen (Postgres allows
// max_connections, 100 by default, for everyone).
func sampleConns(store *repo.Store) (stop func(), peak *int) {
	peak = new(int)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var n int
			if store.DB.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()`) == nil {
				*peak = max(*peak, n)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }, peak
}

// tableReads is, per table of the installation's database, the rows read
// so far: in all (by scans and by index) and by scans.
func tableReads(t *testing.T, store *repo.Store) map[string][2]float64 {
	var rows []struct {
		Table string  `db:"relname"`
		All   float64 `db:"all"`
		Scans float64 `db:"scans"`
	}
	if err := store.DB.Select(&rows, `SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS all,
		coalesce(seq_tup_read, 0) AS scans FROM pg_stat_user_tables`); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for _, r := range rows {
		out[r.Table] = [2]float64{r.All, r.Scans}
	}
	return out
}

// topReads names the three tables read most between before and after, in
// rows per send.
func topReads(before, after map[string][2]float64, sends int) string {
	type read struct {
		table      string
		all, scans float64
	}
	var reads []read
	for table, a := range after {
		reads = append(reads, read{table, a[0] - before[table][0], a[1] - before[table][1]})
	}
	slices.SortFunc(reads, func(x, y read) int { return int(y.all - x.all) })
	var out []string
	for _, r := range reads[:min(3, len(reads))] {
		out = append(out, fmt.Sprintf("%s %.0f (%.0f by scans)", r.table, r.all/float64(max(sends, 1)), r.scans/float64(max(sends, 1))))
	}
	return strings.Join(out, ", ")
}

// pidCPU is the user and system CPU time a process has used (0 when it is
// gone or not on Linux).
func pidCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// After the command name (which may hold spaces) come state (the
	// 3rd field) … utime and stime (the 14th and 15th).
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond // USER_HZ is 100
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

// profileAll takes a CPU profile of every process over the load when
// MSGSVC_SCALEOUT_PROFILE names a directory, into <dir>/<name>-serve1.pprof
// and so on; the returned func waits for them.
func profileAll(t *testing.T, d time.Duration, name string, serves, workers []*process) (wait func()) {
	dir := os.Getenv("MSGSVC_SCALEOUT_PROFILE")
	if dir == "" {
		return func() {}
	}
	var wg sync.WaitGroup
	take := func(p *process, file string) {
		wg.Go(func() {
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.metrics, int(d.Seconds())))
			if err != nil {
				t.Errorf("profile %s: %v", file, err)
				return
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, file), raw, 0o644)
			}
			if err != nil {
				t.Errorf("profile %s: %v", file, err)
			}
		})
	}
	for i, p := range serves {
		take(p, fmt.Sprintf("%s-serve%d.pprof", name, i+1))
	}
	for i, p := range workers {
		take(p, fmt.Sprintf("%s-worker%d.pprof", name, i+1))
	}
	return wg.Wait
}
