package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts redis-server (or Sentinel, with "--sentinel" among
// args) on a free loopback port with a config file of lines, and returns
// its port and process; the test's end stops it.
func startRedis(t *testing.T, bin string, lines string, args ...string) (int, *os.Process) {
	t.Helper()
	port := freePort(t)
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
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer c.Close()
	waitFor(t, 10*time.Second, "redis on port "+strconv.Itoa(port), func() bool {
		return c.Ping(context.Background()).Err() == nil
	})
	return port, cmd.Process
}

// waitFor polls cond until it holds, failing the test after limit (a bound
// for a broken setup, not a timed assertion).
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A Sentinel URL reaches the primary for go-redis's and asynq's clients;
// the replica is not ready; after the primary dies and the Sentinel
// promotes the replica, the same clients write to the new primary, which
// is ready, and Describe names another server (what makes a worker hand
// the queue every due webhook delivery again).
func TestSentinelFailover(t *testing.T) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Sentinel failover test is skipped")
	}
	// Debian's redis-sentinel, or the same server in Sentinel mode.
	sentinel, sentinelArgs := server, []string{"--sentinel"}
	if bin, err := exec.LookPath("redis-sentinel"); err == nil {
		sentinel, sentinelArgs = bin, nil
	}
	ctx := context.Background()
	primaryPort, primary := startRedis(t, server, "")
	replicaPort, _ := startRedis(t, server, fmt.Sprintf("replicaof 127.0.0.1 %d\n", primaryPort))
	sentinelPort, _ := startRedis(t, sentinel, fmt.Sprintf(`sentinel monitor tm 127.0.0.1 %d 1
sentinel down-after-milliseconds tm 500
sentinel failover-timeout tm 5000
`, primaryPort), sentinelArgs...)

	direct := func(port int) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
		t.Cleanup(func() { c.Close() })
		return c
	}
	// The replica has caught up once it holds what the primary wrote.
	if err := direct(primaryPort).Set(ctx, "synced", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the replica's sync", func() bool {
		return direct(replicaPort).Get(ctx, "synced").Val() == "1"
	})
	if err := Ready(ctx, direct(replicaPort)); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("the replica's readiness: %v, want ErrNotPrimary", err)
	}

	o, err := Parse(fmt.Sprintf("redis-sentinel://127.0.0.1:%d?master=tm", sentinelPort))
	if err != nil {
		t.Fatal(err)
	}
	rdb := o.Client()
	defer rdb.Close()
	if err := Ready(ctx, rdb); err != nil {
		t.Fatalf("readiness through the Sentinel: %v", err)
	}
	before, err := Describe(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	jobs := asynq.NewClient(o.Asynq())
	defer jobs.Close()
	if _, err := jobs.Enqueue(asynq.NewTask("probe", nil), asynq.Queue("sentinel_test")); err != nil {
		t.Fatalf("enqueue through the Sentinel: %v", err)
	}

	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(sentinelPort)})
	defer sc.Close()
	waitFor(t, 30*time.Second, "the Sentinel's promotion of the replica", func() bool {
		addr, err := sc.GetMasterAddrByName(ctx, "tm").Result()
		return err == nil && addr[1] == strconv.Itoa(replicaPort)
	})
	// The same clients follow: writes succeed on the new primary.
	waitFor(t, 10*time.Second, "a write through the Sentinel after the failover", func() bool {
		return rdb.Set(ctx, "after", "1", 0).Err() == nil
	})
	if got := direct(replicaPort).Get(ctx, "after").Val(); got != "1" {
		t.Fatalf("the write after the failover is not on the promoted replica (%q)", got)
	}
	if _, err := jobs.Enqueue(asynq.NewTask("probe", nil), asynq.Queue("sentinel_test")); err != nil {
		t.Fatalf("enqueue after the failover: %v", err)
	}
	if err := Ready(ctx, rdb); err != nil {
		t.Fatalf("readiness after the failover: %v", err)
	}
	after, err := Describe(ctx, rdb)
	if err != nil || after.RunID == before.RunID || after.Role != "master" {
		t.Fatalf("server before %+v, after %+v (%v): want another primary", before, after, err)
	}
}
