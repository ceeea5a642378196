package redisconn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		url      string
		sentinel bool
		addrs    string // the Sentinels, or the server
		master   string
		password string
		db       int
		err      string
	}{
		{url: "redis://:pw@127.0.0.1:6380/2", addrs: "127.0.0.1:6380", password: "pw", db: 2},
		{url: "redis-sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26380?master=mymaster", sentinel: true,
			addrs: "10.0.0.1:26379,10.0.0.2:26380", master: "mymaster", password: "s3cret"},
		{url: "redis-sentinel://sentinel-a,sentinel-b:5000?master=m&db=3", sentinel: true,
			addrs: "sentinel-a:26379,sentinel-b:5000", master: "m", db: 3},
		{url: "redis-sentinel://10.0.0.1:26379", err: "?master=NAME"},
		{url: "redis-sentinel://10.0.0.1:26379,:26380?master=m", err: "has no host"},
		{url: "redis-sentinel://10.0.0.1:99999?master=m", err: "no valid port"},
		{url: "redis-sentinel://10.0.0.1:26379?master=m&db=x", err: "not a database number"},
		{url: "memcached://:hunter2@10.0.0.1", err: "scheme"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			o, err := Parse(tc.url)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("the error carries the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Sentinel() != tc.sentinel {
				t.Fatalf("sentinel %v", o.Sentinel())
			}
			if tc.sentinel {
				f := o.failover
				if got := strings.Join(f.SentinelAddrs, ","); got != tc.addrs || f.MasterName != tc.master ||
					f.Password != tc.password || f.SentinelPassword != tc.password || f.DB != tc.db {
					t.Fatalf("options %+v", f)
				}
				return
			}
			if s := o.single; s.Addr != tc.addrs || s.Password != tc.password || s.DB != tc.db {
				t.Fatalf("options %+v", s)
			}
		})
	}
}

// Every client of one Options is a client of the same server: asynq's
// connection options make the same go-redis clients.
func TestAsynqMakesTheSameClient(t *testing.T) {
	o, err := Parse("redis://127.0.0.1:6379/5")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := o.Asynq().MakeRedisClient().(*redis.Client)
	if !ok {
		t.Fatalf("asynq's client is %T", o.Asynq().MakeRedisClient())
	}
	defer c.Close()
	if c.Options().Addr != "127.0.0.1:6379" || c.Options().DB != 5 {
		t.Fatalf("asynq's client options %+v", c.Options())
	}
}

type infoOnly struct {
	redis.Cmdable
	info string
	err  error
}

func (f infoOnly) Info(ctx context.Context, _ ...string) *redis.StringCmd {
	cmd := redis.NewStringCmd(ctx, "info")
	cmd.SetVal(f.info)
	cmd.SetErr(f.err)
	return cmd
}

func TestReady(t *testing.T) {
	ctx := context.Background()
	primary := infoOnly{info: "# Server\r\nrun_id:abc\r\n# Replication\r\nrole:master\r\nconnected_slaves:1\r\n"}
	if err := Ready(ctx, primary); err != nil {
		t.Fatalf("primary: %v", err)
	}
	replica := infoOnly{info: "# Server\r\nrun_id:def\r\n# Replication\r\nrole:slave\r\nmaster_host:10.0.0.1\r\n"}
	if err := Ready(ctx, replica); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("replica: %v, want ErrNotPrimary", err)
	}
	down := infoOnly{err: errors.New("dial tcp: connection refused")}
	if err := Ready(ctx, down); err == nil {
		t.Fatal("an unreachable server is ready")
	}
	s, err := Describe(ctx, replica)
	if err != nil || s != (Server{RunID: "def", Role: "slave"}) {
		t.Fatalf("describe: %+v %v", s, err)
	}
}
