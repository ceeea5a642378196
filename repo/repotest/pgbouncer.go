package repotest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PgBouncer starts Debian's pgbouncer in transaction mode in front of the
// test server (AdminURL) on a free loopback port, stopped when the test
// ends, and returns the URL of a database name through it (the same
// database as withDatabase(AdminURL(), name), pooled). A test is skipped,
// saying so, where the pgbouncer binary is absent (.ci/services installs
// it). extra are lines added to the [pgbouncer] section.
func PgBouncer(t testing.TB, extra ...string) func(name string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr != nil {
			t.Skip("pgbouncer is not installed (apt-get install pgbouncer; .ci/services does): the tests through a transaction pooler are skipped")
		}
		bin = "/usr/sbin/pgbouncer"
	}
	admin, err := url.Parse(AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// pgbouncer refuses to run as root: it then runs as postgres, and
	// reads its files as that user.
	args := []string{}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			t.Skip("pgbouncer does not run as root and there is no postgres user to run it as")
		}
		args = append(args, "-u", "postgres")
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ini := writePgBouncerConfig(t, bin, dir, admin, port, extra)
	cmd := exec.Command(bin, append(args, ini)...)
	logf, err := os.Create(filepath.Join(dir, "pgbouncer.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start pgbouncer: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if ctx.Err() != nil {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("pgbouncer does not listen on %s: %s", addr, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func(name string) string {
		u := *admin
		u.Host = addr
		u.Path = "/" + name
		return u.String()
	}
}

// writePgBouncerConfig writes the config of a pgbouncer on port in front
// of admin's server, and its users file, into dir.
func writePgBouncerConfig(t testing.TB, bin, dir string, admin *url.URL, port int, extra []string) string {
	t.Helper()
	pgUser := admin.User.Username()
	auth := filepath.Join(dir, "users.txt")
	if err := os.WriteFile(auth, []byte(fmt.Sprintf("%q \"\"\n", pgUser)), 0o644); err != nil {
		t.Fatal(err)
	}
	ini := filepath.Join(dir, "pgbouncer.ini")
	conf := fmt.Sprintf(`[databases]
* = host=%s port=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 200
default_pool_size = 20
%s
`, admin.Hostname(), admin.Port(), port, auth, strings.Join(extra, "\n"))
	if !strings.Contains(conf, "ignore_startup_parameters") {
		conf += "ignore_startup_parameters = extra_float_digits\n"
	}
	if carriesPrepared(bin) {
		// Like the versions before 1.21, which carry none.
		conf += "max_prepared_statements = 0\n"
	}
	if err := os.WriteFile(ini, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return ini
}

// carriesPrepared says whether a pgbouncer binary is 1.21 or later, which
// can carry prepared statements in transaction mode.
func carriesPrepared(bin string) bool {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(out), "PgBouncer %d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || major == 1 && minor >= 21
}

// EmptyDatabase creates a database with nothing in it, dropped when the
// test ends, and returns its name.
func EmptyDatabase(t testing.TB) string {
	t.Helper()
	name := "msgsvc_e_" + randomSuffix()
	admin := connectAdmin(t)
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(name) })
	return name
}
