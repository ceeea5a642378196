package rest_test

import (
	"database/sql/driver"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkReadsVsPgbench puts GET /v1/conversations/{id} beside the
// database's own ceiling for it: the same clients (BENCH_READS_CLIENTS, 8)
// read one conversation through the HTTP API for BENCH_READS_SECONDS (5),
// then pgbench -M prepared runs the very statement msgsvc runs for it
// (repo.ConversationStatement, with the same arguments) from as many
// clients for as long, on the same database. It reports both rates and
// their ratio (msgsvc/pgbench). Both load generators run on the machine
// they measure, as they would on one box; make bench-reads runs it.
func BenchmarkReadsVsPgbench(b *testing.B) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		b.Skip("pgbench is not installed")
	}
	clients, seconds := envInt("BENCH_READS_CLIENTS", 8), envInt("BENCH_READS_SECONDS", 5)
	quietLogs(b)
	api := resttest.New(b)
	api.Reconfigure(func(c *resttest.Config) {
		c.KeyCache = &auth.CachedKeys{Store: api.Store, Clock: api.Clock.Now, TTL: time.Hour}
	})
	dbExec(b, api, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000 WHERE id = 'ws_main'`)
	conv := startConv(api, map[string]any{"channel": "website", "from": "visitor-bench"})
	b.ResetTimer()
	for range b.N {
		reads := readsPerSecond(b, api, conv, clients, time.Duration(seconds)*time.Second)
		db := pgbenchPerSecond(b, api.Store, conv, clients, seconds)
		b.ReportMetric(reads, "msgsvc-reads/s")
		b.ReportMetric(db, "pgbench-tps")
		b.ReportMetric(reads/db, "ratio")
	}
}

// readsPerSecond reads conv from clients at once for d through the HTTP
// API, each client on a kept-alive connection, and returns the reads a
// second.
func readsPerSecond(b *testing.B, api *resttest.API, conv string, clients int, d time.Duration) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	key := api.Key("test_all")
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for range clients {
		wg.Go(func() {
			for time.Now().Before(stop) {
				req, _ := http.NewRequest("GET", api.HTTP.URL+"/v1/conversations/"+conv, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("read: %d", resp.StatusCode)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// pgParam matches a statement's $n parameters.
var pgParam = regexp.MustCompile(`\$(\d+)`)

// pgbenchTPS matches pgbench's summary line.
var pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchPerSecond runs the statement of GET /v1/conversations/{id} with
// pgbench -M prepared, its arguments given as pgbench variables (bound as
// parameters of the prepared statement, as msgsvc binds them), and returns
// pgbench's transactions a second.
func pgbenchPerSecond(b *testing.B, store *repo.Store, conv string, clients, seconds int) float64 {
	query, args := repo.ConversationStatement(repo.Scope{WorkspaceID: "ws_main"}, conv)
	script := filepath.Join(b.TempDir(), "read.sql")
	if err := os.WriteFile(script, []byte(pgParam.ReplaceAllString(query, ":p$1")+";\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	var dbName string
	if err := store.DB.Get(&dbName, `SELECT current_database()`); err != nil {
		b.Fatal(err)
	}
	cmd := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(seconds), "-f", script}
	for i, a := range args {
		if v, ok := a.(driver.Valuer); ok {
			a, _ = v.Value()
		}
		cmd = append(cmd, "-D", fmt.Sprintf("p%d=%v", i+1, a))
	}
	out, err := exec.Command("pgbench", append(cmd, repotest.URL(dbName))...).CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no tps in pgbench's output:\n%s", out)
	}
	tps, _ := strconv.ParseFloat(string(m[1]), 64)
	return tps
}

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
