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
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// ServerBin is the redis-server binary; the test is skipped, saying so,
// where it is absent.
func ServerBin(t testing.TB) string {
	t.Helper()
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
