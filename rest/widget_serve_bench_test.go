package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/jmoiron/sqlx"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkWidgetServe is BenchmarkWidgetReply against `msgsvc serve` as
// an operator runs it: the binary built from cmd/msgsvc on a fresh
// database and queue, and the visitors' sockets dialled by child processes
// (this test binary again, TestWidgetSocketClient, 10,000 sockets each),
// so the serving process holds one open file per socket and nothing else
// of the benchmark. Only with MSGSVC_BENCH_WIDGET_SERVE=1 (make
// bench-widget): it is a measurement that takes minutes.
//
// MSGSVC_BENCH_WIDGET_SOCKETS sets the sockets; by default as many as the
// server's open-files limit allows once its own files are counted, less
// MSGSVC_BENCH_WIDGET_HEADROOM (64: room for its Postgres and Redis pools
// to grow under the replies; past the limit a connection to either fails).
// With every socket connected it reports the server's resident memory
// (VmRSS), its CPU while idle for MSGSVC_BENCH_WIDGET_IDLE seconds (20),
// then sends -benchtime=Nx API replies at 50/s as BenchmarkWidgetReply
// does, each timed from the POST's answer to its push on the socket.
func BenchmarkWidgetServe(b *testing.B) {
	if os.Getenv("MSGSVC_BENCH_WIDGET_SERVE") != "1" {
		b.Skip("a measurement: MSGSVC_BENCH_WIDGET_SERVE=1 (make bench-widget) runs it")
	}
	s := startWidgetServe(b)
	tmpl := s.firstChat(b)
	limit, baseline := s.fdLimit(b), s.fds()
	sockets := envInt("MSGSVC_BENCH_WIDGET_SOCKETS", limit-baseline-envInt("MSGSVC_BENCH_WIDGET_HEADROOM", 64))
	cloneVisitors(b, s.db, tmpl, sockets)

	got := make([]chan socketFrame, sockets)
	for i := range got {
		got[i] = make(chan socketFrame, 16)
	}
	dialStart := time.Now()
	for first := 0; first < sockets; first += 10_000 {
		startSocketClients(b, s.wsURL(), first, min(10_000, sockets-first), got)
	}
	dialed := time.Since(dialStart)
	held := s.fds()
	b.Logf("%d sockets dialled in %s; the server had %d open files before them, its limit is %d; now %s",
		sockets, dialed.Round(time.Millisecond), baseline, limit, s.files(b))

	idle := time.Duration(envInt("MSGSVC_BENCH_WIDGET_IDLE", 20)) * time.Second
	cpu0 := s.cpu(b)
	if dir := os.Getenv("MSGSVC_BENCH_WIDGET_PROFILE"); dir != "" {
		s.profile(b, fmt.Sprintf("profile?seconds=%d", int(idle.Seconds())), filepath.Join(dir, "idle.cpu.pprof"))
		s.profile(b, "heap", filepath.Join(dir, "connected.heap.pprof"))
		s.profile(b, "heap?debug=1", filepath.Join(dir, "connected.heap.txt")) // with runtime.MemStats
	} else {
		time.Sleep(idle)
	}
	idleCPU := s.cpu(b) - cpu0
	rss := s.rss(b)
	b.Logf("all connected: VmRSS %.0f MB; CPU %s over %s idle; load average %s", float64(rss)/(1<<20), idleCPU, idle, loadAverage())

	peak := held
	stopPeak := s.sampleFDs(&peak)
	latencies, posts, lost := replyAtFifty(b, s.url, s.key, sockets, got)
	stopPeak()
	b.Logf("after the replies, %s (at most %d)", s.files(b), peak)
	b.ReportMetric(float64(sockets), "sockets")
	b.ReportMetric(float64(held), "server-fds")
	b.ReportMetric(float64(peak), "server-fds-peak")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
	b.ReportMetric(float64(rss)/float64(sockets)/1024, "rss-KB/socket")
	b.ReportMetric(100*idleCPU.Seconds()/idle.Seconds(), "idle-cpu-%")
	b.ReportMetric(msAt(latencies, 0.5), "p50-ms")
	b.ReportMetric(msAt(latencies, 0.99), "p99-ms")
	b.ReportMetric(msAt(posts, 0.5), "post-p50-ms")
	b.ReportMetric(float64(lost), "lost")
}

// widgetServe is one `msgsvc serve` on a database and queue of its own.
type widgetServe struct {
	cmd  *exec.Cmd
	db   *sqlx.DB
	url  string
	key  string // the fixture's live_all key
	logs string // the file its output goes to
	// metrics is the address of its /metrics and /debug/pprof/.
	metrics string
}

// startWidgetServe builds msgsvc, seeds the fixture (with no practical
// rate limit or quota) and starts `msgsvc serve`, stopped at the end.
func startWidgetServe(b *testing.B) *widgetServe {
	dir := b.TempDir()
	bin := filepath.Join(dir, "msgsvc")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/msgsvc/msgsvc/cmd/msgsvc").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	store, dsn := repotest.NewStoreURL(b)
	queue := resttest.NewQueueName()
	b.Cleanup(func() {
		resttest.DropQueue(b, queue)
		resttest.DropQueue(b, jobs.WebhookQueue(queue))
	})
	addr, metrics := freeLoopback(b), freeLoopback(b)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DATABASE_URL=" + dsn,
		"REDIS_URL=" + resttest.RedisURL(), "MSGSVC_QUEUE=" + queue, "MSGSVC_ADDR=" + addr, "MSGSVC_METRICS_ADDR=" + metrics,
		"MSGSVC_SECRET=widget-bench-secret-0123456789abcdef", "MSGSVC_ADMIN_TOKEN=widget-bench-admin-token",
		"MSGSVC_WIDGET_RATE_LIMIT=1000000"}
	seed := exec.Command(bin, "seed", "--file", resttest.FixturePath())
	seed.Env = env
	if out, err := seed.CombinedOutput(); err != nil {
		b.Fatalf("seed: %v\n%s", err, out)
	}
	s := &widgetServe{db: store.DB, url: "http://" + addr, key: fixtureSecret(b, "key_live_all"), logs: filepath.Join(dir, "serve.log"), metrics: metrics}
	if _, err := s.db.Exec(`UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000,
		messages_limit = 100000000 WHERE id = 'ws_main'`); err != nil {
		b.Fatal(err)
	}
	logs, err := os.Create(s.logs)
	if err != nil {
		b.Fatal(err)
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = env, logs, logs
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); logs.Close(); close(exited) }()
	b.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = s.cmd.Process.Kill()
			<-exited
		}
		if b.Failed() {
			out, _ := os.ReadFile(s.logs)
			b.Logf("msgsvc serve output (last 4 KB):\n%s", out[max(0, len(out)-4096):])
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(s.url + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-exited:
			b.Fatalf("msgsvc serve stopped: %v", s.cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			b.Fatal("msgsvc serve not ready within 30 s")
		}
	}
}

// firstChat is a visitor chatting through the visitor API; it returns
// the id of its conversation, the template of the others.
func (s *widgetServe) firstChat(b *testing.B) string {
	var out struct {
		Data struct {
			Token string `json:"visitor_token"`
			Conv  string `json:"conversation_id"`
		} `json:"data"`
	}
	s.post(b, "/widget/v1/sessions", "", map[string]any{"website_id": "web_main"}, 200, &out)
	s.post(b, "/widget/v1/messages", "Visitor "+out.Data.Token, map[string]any{"text": "hi"}, 201, &out)
	if out.Data.Conv == "" {
		b.Fatal("the first visitor's message has no conversation")
	}
	return out.Data.Conv
}

func (s *widgetServe) post(b *testing.B, path, auth string, body any, want int, out any) {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(raw))
	req.Header.Set("Origin", mainOrigin)
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ = io.ReadAll(res.Body)
	if res.StatusCode != want {
		b.Fatalf("POST %s: %d %s", path, res.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		b.Fatal(err)
	}
}

// profile saves the server's /debug/pprof/<what> to file.
func (s *widgetServe) profile(b *testing.B, what, file string) {
	res, err := http.Get("http://" + s.metrics + "/debug/pprof/" + what)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != 200 {
		err = fmt.Errorf("%s: %d %s", what, res.StatusCode, raw)
	}
	if err == nil {
		err = os.WriteFile(file, raw, 0o600)
	}
	if err != nil {
		b.Fatal(err)
	}
}

func (s *widgetServe) wsURL() string {
	return "ws" + strings.TrimPrefix(s.url, "http") + "/widget/v1/ws?token="
}

// proc reads /proc/<pid>/<name>.
func (s *widgetServe) proc(b *testing.B, name string) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", s.cmd.Process.Pid, name))
	if err != nil {
		b.Fatal(err)
	}
	return string(raw)
}

// fds is how many files the server has open (0 once it has ended).
func (s *widgetServe) fds() int {
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
	return len(entries)
}

// files says what the server's open files are: TCP connections by the
// port of their other end (the API's port: the sockets and API clients;
// Postgres; Redis), listeners, and the rest.
func (s *widgetServe) files(b *testing.B) string {
	_, apiPort, _ := net.SplitHostPort(strings.TrimPrefix(s.url, "http://"))
	tcp := map[string]string{} // socket inode: what it is
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, _ := os.ReadFile(table)
		for line := range strings.Lines(string(raw)) {
			f := strings.Fields(line)
			if len(f) < 10 || f[0] == "sl" {
				continue
			}
			local, _ := strconv.ParseInt(f[1][strings.LastIndexByte(f[1], ':')+1:], 16, 32)
			remote, _ := strconv.ParseInt(f[2][strings.LastIndexByte(f[2], ':')+1:], 16, 32)
			switch {
			case f[3] == "0A":
				tcp[f[9]] = "listening"
			case strconv.Itoa(int(local)) == apiPort:
				tcp[f[9]] = "clients of the API port"
			case remote == 5432:
				tcp[f[9]] = "Postgres"
			case remote == 6379:
				tcp[f[9]] = "Redis"
			default:
				tcp[f[9]] = "other TCP"
			}
		}
	}
	dir := fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range entries {
		link, _ := os.Readlink(filepath.Join(dir, e.Name()))
		kind := "other (" + link + ")"
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			if kind = tcp[strings.TrimSuffix(inode, "]")]; kind == "" {
				kind = "other sockets"
			}
		} else if strings.HasPrefix(link, "anon_inode:") || strings.HasPrefix(link, "pipe:") || strings.HasPrefix(link, "/dev/") {
			kind = "the runtime's and standard files"
		}
		kinds[kind]++
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		out = append(out, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	return fmt.Sprintf("%d open files: %s", len(entries), strings.Join(out, ", "))
}

// fdLimit is the server's open-files limit (its soft limit, which Go
// raises to the hard one at start).
func (s *widgetServe) fdLimit(b *testing.B) int {
	for line := range strings.Lines(s.proc(b, "limits")) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if n, err := strconv.Atoi(strings.Fields(rest)[0]); err == nil {
				return n
			}
		}
	}
	b.Fatal("no open-files limit in /proc/<pid>/limits")
	return 0
}

// rss is the server's resident memory in bytes.
func (s *widgetServe) rss(b *testing.B) int64 {
	for line := range strings.Lines(s.proc(b, "status")) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	b.Fatal("no VmRSS in /proc/<pid>/status")
	return 0
}

// cpu is the server's CPU time so far (user and system).
func (s *widgetServe) cpu(b *testing.B) time.Duration {
	stat := s.proc(b, "stat")
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:]) // fields from the 3rd
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// sampleFDs keeps in peak the most files the server had open, sampled
// every 100 ms until stop.
func (s *widgetServe) sampleFDs(peak *int) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				*peak = max(*peak, s.fds())
			}
		}
	}()
	return func() { close(done); <-finished }
}

// socketFrame is a message pushed to a socket: when (Unix ns) and its id.
type socketFrame struct {
	at int64
	id string
}

// startSocketClients starts a child process holding the sockets of
// visitors first … first+n-1 and waits until it has dialled them all;
// their message pushes go to got. The child ends when the benchmark does.
func startSocketClients(b *testing.B, url string, first, n int, got []chan socketFrame) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestWidgetSocketClient$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("MSGSVC_WIDGET_CLIENT=%s %d %d", url, first, n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe() // its end tells the child to stop
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		timer.Stop()
	})
	ready := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			f := strings.Fields(lines.Text())
			switch {
			case len(f) == 4 && f[0] == "push":
				i, _ := strconv.Atoi(f[1])
				at, _ := strconv.ParseInt(f[3], 10, 64)
				if i >= 0 && i < len(got) {
					got[i] <- socketFrame{at, f[2]}
				}
			case len(f) > 0 && f[0] == "dialled":
				ready <- lines.Text()
			}
		}
		close(ready)
	}()
	select {
	case line, ok := <-ready:
		if want := fmt.Sprintf("dialled %d of %d", n, n); !ok || line != want {
			b.Fatalf("socket client %d-%d: %q, want %q", first, first+n-1, line, want)
		}
	case <-time.After(5 * time.Minute):
		b.Fatalf("socket client %d-%d not dialled within 5 min", first, first+n-1)
	}
}

// TestWidgetSocketClient is BenchmarkWidgetServe's socket client, run as
// a child process (MSGSVC_WIDGET_CLIENT="<ws url> <first> <n>"): it dials
// visitors first … first+n-1 (tokens vt_wb<i+1>) from 127.0.0.1-8 in turn,
// prints "dialled <ok> of <n>" (the first failures on stderr), then a line
// "push <i> <message id> <Unix ns>" for every message pushed, until its
// stdin closes or 15 minutes pass.
func TestWidgetSocketClient(t *testing.T) {
	params := strings.Fields(os.Getenv("MSGSVC_WIDGET_CLIENT"))
	if len(params) != 3 {
		t.Skip("BenchmarkWidgetServe's socket client, run by it as a child process")
	}
	first, _ := strconv.Atoi(params[1])
	n, _ := strconv.Atoi(params[2])
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	failed, hold, firstErr := holdSockets(ctx, params[0], first, n, func(i int, f socketFrame) {
		say("push %d %s %d", i, f.id, f.at)
	})
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "%d sockets failed, the first: %v\n", failed, firstErr)
	}
	say("dialled %d of %d", n-failed, n)
	<-ctx.Done()
	hold()
}

// holdSockets dials the sockets of visitors first … first+n-1 (tokens
// vt_wb<i+1> on url, 16 at a time) from 127.0.0.1-8 in turn, so the
// ephemeral ports do not run short, and hands every message pushed to
// push until ctx ends; it returns once all are dialled, with how many
// failed, a wait for the readers after ctx ends, and the first error.
func holdSockets(ctx context.Context, url string, first, n int, push func(i int, f socketFrame)) (failed int, wait func(), firstErr error) {
	var clients [8]*http.Client
	for k := range clients {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+k))}
		clients[k] = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: src}).DialContext}}
	}
	dial := make(chan int)
	var mu sync.Mutex
	var dialers, readers sync.WaitGroup
	for range 16 {
		dialers.Go(func() {
			for i := range dial {
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				c, _, err := websocket.Dial(dctx, url+"vt_wb"+strconv.Itoa(i+1), &websocket.DialOptions{
					HTTPClient: clients[i%8], HTTPHeader: http.Header{"Origin": {mainOrigin}}})
				cancel()
				if err != nil {
					mu.Lock()
					if failed++; failed == 1 {
						firstErr = fmt.Errorf("socket %d: %w", i, err)
					}
					mu.Unlock()
					continue
				}
				readers.Go(func() {
					defer c.CloseNow()
					for {
						var p pushFrame
						if err := wsjson.Read(ctx, c, &p); err != nil {
							return
						}
						if p.Type == "message" && p.Message != nil {
							push(i, socketFrame{time.Now().UnixNano(), p.Message.ID})
						}
					}
				})
			}
		})
	}
	for i := first; i < first+n; i++ {
		dial <- i
	}
	close(dial)
	dialers.Wait()
	return failed, readers.Wait, firstErr
}

// replyAtFifty sends API replies (one per b.Loop) at 50/s to visitors in a scattered
// turn and times each from the POST's answer to its push (in got); a
// reply refused, or not pushed within 10 s, is lost.
func replyAtFifty(b *testing.B, base, key string, sockets int, got []chan socketFrame) (latencies, posts []time.Duration, lost int) {
	client := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	reply := func(i int) (string, time.Time, error) {
		body, _ := json.Marshal(map[string]any{"conversation_id": "conv_wb" + strconv.Itoa(i+1), "text": "reply"})
		req, _ := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		started := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return "", started, err
		}
		defer res.Body.Close()
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		raw, err := io.ReadAll(res.Body)
		if err == nil && res.StatusCode == 201 {
			err = json.Unmarshal(raw, &out)
		}
		if err != nil || res.StatusCode != 201 {
			return "", started, fmt.Errorf("reply %d: %d %v %s", i, res.StatusCode, err, raw)
		}
		answered := time.Now()
		mu.Lock()
		posts = append(posts, answered.Sub(started))
		mu.Unlock()
		return out.Data.ID, answered, nil
	}
	record := func(d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		latencies = append(latencies, d)
		if err != nil {
			if lost++; lost == 1 {
				b.Log(err)
			}
		}
	}
	var sends sync.WaitGroup
	pace := time.NewTicker(20 * time.Millisecond)
	defer pace.Stop()
	// b.Loop: the benchmark function runs once, so its sockets are set up
	// once.
	for n := 0; b.Loop(); n++ {
		<-pace.C
		sends.Go(func() {
			i := n * 7919 % sockets
			id, answered, err := reply(i)
			if err != nil {
				record(10*time.Second, err)
				return
			}
			deadline := time.After(10 * time.Second)
			for {
				select {
				case f := <-got[i]:
					if f.id == id {
						record(time.Duration(f.at-answered.UnixNano()), nil)
						return
					}
				case <-deadline:
					record(10*time.Second, fmt.Errorf("reply %s to visitor %d not pushed within 10 s", id, i))
					return
				}
			}
		})
	}
	sends.Wait()
	return latencies, posts, lost
}

// cloneVisitors makes n visitors like the one of conversation tmpl: a
// contact ct_wb<i>, a visitor vis_wb<i> with the token vt_wb<i>, its open
// chat conv_wb<i> and one opened and closed the day before, conv_wbpast<i>.
func cloneVisitors(b *testing.B, db *sqlx.DB, tmpl string, n int) {
	exec := func(query string, args ...any) {
		if _, err := db.Exec(query, args...); err != nil {
			b.Fatalf("%s: %v", query, err)
		}
	}
	exec(`INSERT INTO contacts SELECT (jsonb_populate_record(c, jsonb_build_object('id', 'ct_wb' || i, 'external_id', 'vis_ext_wb' || i, 'email', null, 'phone', null))).*
		FROM contacts c, generate_series(1, $2) i WHERE c.id = (SELECT contact_id FROM conversations WHERE id = $1)`, tmpl, n)
	exec(`INSERT INTO widget_visitors SELECT (jsonb_populate_record(v, jsonb_build_object('id', 'vis_wb' || i,
		'contact_id', 'ct_wb' || i, 'token_hash', encode(sha256(('vt_wb' || i)::bytea), 'hex')))).*
		FROM widget_visitors v, generate_series(1, $2) i WHERE v.contact_id = (SELECT contact_id FROM conversations WHERE id = $1)`, tmpl, n)
	for _, past := range []bool{true, false} {
		exec(`INSERT INTO conversations SELECT (jsonb_populate_record(c, jsonb_build_object(
			'id', CASE WHEN $3 THEN 'conv_wbpast' ELSE 'conv_wb' END || i, 'contact_id', 'ct_wb' || i,
			'status', CASE WHEN $3 THEN 'closed' ELSE 'open' END,
			'created_at', c.created_at - CASE WHEN $3 THEN interval '1 day' ELSE interval '0' END,
			'updated_at', c.updated_at - CASE WHEN $3 THEN interval '1 day' ELSE interval '0' END))).*
			FROM conversations c, generate_series(1, $2) i WHERE c.id = $1`, tmpl, n, past)
	}
}

// msAt is the p-quantile of ds in milliseconds (0 for none).
func msAt(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
}

// freeLoopback is a 127.0.0.1 address with a port nothing listens on.
func freeLoopback(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// fixtureSecret is the secret of the fixture's key id.
func fixtureSecret(b *testing.B, id string) string {
	raw, err := os.ReadFile(resttest.FixturePath())
	if err != nil {
		b.Fatal(err)
	}
	var f struct {
		Workspaces []struct {
			Keys []struct{ ID, Secret string }
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		b.Fatal(err)
	}
	for _, w := range f.Workspaces {
		for _, k := range w.Keys {
			if k.ID == id {
				return k.Secret
			}
		}
	}
	b.Fatalf("no fixture key %s", id)
	return ""
}

// loadAverage is the machine's load average (1, 5 and 15 minutes).
func loadAverage() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(raw))[:min(3, len(strings.Fields(string(raw))))], " ")
}
