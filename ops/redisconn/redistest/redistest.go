// Package redistest starts Redis servers and Sentinels of a test's own on
// free loopback ports, for the tests of failovers and restarts.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/redis/go-redis/v9"
)

// ServerBin is the redis-server binary; the test is skipped, saying so,
// where it is absent, and in -short mode.
func ServerBin(t testing.TB) string {
	t.Helper()
	repotest.SkipShort(t, "Redis servers of its own (redis-server)")
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the tests with Redis servers of their own are skipped")
	}
	return bin
}

// SentinelBin is Debian's redis-sentinel, or redis-server in Sentinel mode,
// with the arguments it needs after its config file.
func SentinelBin(t testing.TB) (string, []string) {
	t.Helper()
	repotest.SkipShort(t, "Redis Sentinels of its own (redis-sentinel)")
	if bin, err := exec.LookPath("redis-sentinel"); err == nil {
		return bin, nil
	}
	return ServerBin(t), []string{"--sentinel"}
}

// FreePort is a loopback port nothing listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start runs bin on port (FreePort when 0) with a config file of lines,
// without persistence, and waits until it answers; the test's end stops
// it.
func Start(t testing.TB, bin string, port int, lines string, args ...string) (int, *os.Process) {
	t.Helper()
	if port == 0 {
		port = FreePort(t)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	body := fmt.Sprintf("bind 127.0.0.1\nport %d\ndir %s\nsave \"\"\nappendonly no\nlogfile %s\n%s",
		port, dir, filepath.Join(dir, "log"), lines)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{conf}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer c.Close()
	WaitFor(t, 10*time.Second, "redis on port "+strconv.Itoa(port), func() bool {
		return c.Ping(context.Background()).Err() == nil
	})
	return port, cmd.Process
}

// WaitFor polls cond until it holds, failing the test after limit (a bound
// for a broken setup, not a timed assertion).
func WaitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Group is a Redis primary with one replica, watched by Sentinels that
// monitor it under the name Master, each process on a loopback port of its
// own; the test's end stops them.
type Group struct {
	Master                   string
	Primary                  *os.Process
	PrimaryPort, ReplicaPort int
	SentinelPorts            []int
}

// StartGroup starts a primary, a replica that has synced with it, and
// sentinels Sentinels (quorum a majority of them) that know one another
// and the replica. The primary counts as down after down.
func StartGroup(t testing.TB, sentinels int, down time.Duration) *Group {
	t.Helper()
	server := ServerBin(t)
	sentinel, sentinelArgs := SentinelBin(t)
	g := &Group{Master: "msgsvc"}
	g.PrimaryPort, g.Primary = Start(t, server, 0, "")
	g.ReplicaPort, _ = Start(t, server, 0, fmt.Sprintf("replicaof 127.0.0.1 %d\n", g.PrimaryPort))
	ctx := context.Background()
	primary, replica := Direct(t, g.PrimaryPort), Direct(t, g.ReplicaPort)
	if err := primary.Set(ctx, "redistest:synced", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, 10*time.Second, "the replica's sync", func() bool {
		return replica.Get(ctx, "redistest:synced").Val() == "1"
	})
	conf := fmt.Sprintf("sentinel monitor %[1]s 127.0.0.1 %[2]d %[3]d\nsentinel down-after-milliseconds %[1]s %[4]d\nsentinel failover-timeout %[1]s 10000\n",
		g.Master, g.PrimaryPort, sentinels/2+1, down.Milliseconds())
	for range sentinels {
		port, _ := Start(t, sentinel, 0, conf, sentinelArgs...)
		g.SentinelPorts = append(g.SentinelPorts, port)
	}
	// Each Sentinel finds the others and the replica through the
	// primary's hello channel and INFO, within a few seconds.
	for _, port := range g.SentinelPorts {
		sc := redis.NewSentinelClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
		defer sc.Close()
		WaitFor(t, 30*time.Second, "the Sentinels to know one another and the replica", func() bool {
			m, err := sc.Master(ctx, g.Master).Result()
			return err == nil && m["num-other-sentinels"] == strconv.Itoa(sentinels-1) && m["num-slaves"] == "1"
		})
	}
	return g
}

// URL is the redis-sentinel:// URL of the group.
func (g *Group) URL() string {
	addrs := make([]string, len(g.SentinelPorts))
	for i, p := range g.SentinelPorts {
		addrs[i] = "127.0.0.1:" + strconv.Itoa(p)
	}
	return "redis-sentinel://" + strings.Join(addrs, ",") + "?master=" + g.Master
}

// WaitPromoted waits until the first Sentinel names the replica as the
// primary, and returns when it saw that.
func (g *Group) WaitPromoted(t testing.TB, limit time.Duration) time.Time {
	t.Helper()
	sc := redis.NewSentinelClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(g.SentinelPorts[0])})
	defer sc.Close()
	WaitFor(t, limit, "the Sentinels' promotion of the replica", func() bool {
		addr, err := sc.GetMasterAddrByName(context.Background(), g.Master).Result()
		return err == nil && addr[1] == strconv.Itoa(g.ReplicaPort)
	})
	return time.Now()
}

// Direct is a client of the server on port; the test's end closes it.
func Direct(t testing.TB, port int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	t.Cleanup(func() { c.Close() })
	return c
}
