// Package redisconn reads REDIS_URL once for every Redis client of the
// process: go-redis's clients (rate limits, widget wake-ups, key-change
// notices, readiness) and asynq's (the job queue, its inspector and
// dashboard). Besides go-redis's redis://, rediss:// and unix:// forms it
// takes asynq's Sentinel form,
//
//	redis-sentinel://[[user]:password@]host1:port1,host2:port2?master=NAME[&db=N]
//
// where every client asks the Sentinels for the current primary and follows
// a failover (go-redis's FailoverClient).
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Options is a parsed REDIS_URL: one server, or a primary found through
// Sentinels.
type Options struct {
	single   *redis.Options
	failover *redis.FailoverOptions
}

// defaultSentinelPort is the Sentinel port of an address given without one.
const defaultSentinelPort = "26379"

// Parse reads a Redis URL. Its errors never carry the URL (it may hold a
// password).
func Parse(raw string) (*Options, error) {
	if !strings.HasPrefix(raw, "redis-sentinel://") {
		opt, err := redis.ParseURL(raw)
		if err != nil {
			return nil, errors.New(strings.ReplaceAll(err.Error(), raw, "<url>"))
		}
		return &Options{single: opt}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("redis-sentinel URL: malformed")
	}
	f := &redis.FailoverOptions{MasterName: u.Query().Get("master")}
	if f.MasterName == "" {
		return nil, errors.New("redis-sentinel URL: ?master=NAME (the primary's name the Sentinels monitor) is missing")
	}
	for _, addr := range strings.Split(u.Host, ",") {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			host, port = addr, defaultSentinelPort
		}
		if host == "" {
			return nil, fmt.Errorf("redis-sentinel URL: Sentinel address %q has no host", addr)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return nil, fmt.Errorf("redis-sentinel URL: Sentinel address %q has no valid port", addr)
		}
		f.SentinelAddrs = append(f.SentinelAddrs, net.JoinHostPort(host, port))
	}
	if u.User != nil {
		// One user and password for the Sentinels and the Redis servers
		// (asynq's form gives the password to the Sentinels).
		f.Username, f.SentinelUsername = u.User.Username(), u.User.Username()
		if pw, ok := u.User.Password(); ok {
			f.Password, f.SentinelPassword = pw, pw
		}
	}
	if v := u.Query().Get("db"); v != "" {
		if f.DB, err = strconv.Atoi(v); err != nil || f.DB < 0 {
			return nil, fmt.Errorf("redis-sentinel URL: db=%q is not a database number", v)
		}
	}
	return &Options{failover: f}, nil
}

// Sentinel says whether the primary is found through Sentinels.
func (o *Options) Sentinel() bool { return o.failover != nil }

// Client returns a new go-redis client on the options.
func (o *Options) Client() *redis.Client {
	if o.failover != nil {
		f := *o.failover
		f.SentinelAddrs = append([]string(nil), f.SentinelAddrs...)
		return redis.NewFailoverClient(&f)
	}
	c := *o.single
	return redis.NewClient(&c)
}

// Asynq returns the options as asynq's connection options: asynq's clients
// are then the same go-redis clients as the process's others.
func (o *Options) Asynq() asynq.RedisConnOpt { return asynqOpt{o} }

type asynqOpt struct{ o *Options }

func (a asynqOpt) MakeRedisClient() any { return a.o.Client() }

// ErrNotPrimary says the Redis server answering is a replica: it refuses
// writes (READONLY), so the queue and rate limits cannot run on it.
var ErrNotPrimary = errors.New("redis: the server is a replica (read-only), not the primary")

// Server describes the Redis server a client reaches: its run id (new after
// every restart) and role.
type Server struct {
	RunID string
	Role  string
}

// Describe asks the server a client reaches who it is (INFO).
func Describe(ctx context.Context, rdb redis.Cmdable) (Server, error) {
	info, err := rdb.Info(ctx).Result()
	if err != nil {
		return Server{}, err
	}
	var s Server
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		switch {
		case !ok:
		case k == "run_id":
			s.RunID = v
		case k == "role":
			s.Role = v
		}
	}
	if s.Role == "" {
		return s, errors.New("redis: INFO names no role")
	}
	return s, nil
}

// Ready checks that the server a client reaches answers and is a primary
// (readiness): a replica answers PING but refuses every write.
func Ready(ctx context.Context, rdb redis.Cmdable) error {
	s, err := Describe(ctx, rdb)
	if err != nil {
		return err
	}
	if s.Role != "master" {
		return fmt.Errorf("%w (role %s)", ErrNotPrimary, s.Role)
	}
	return nil
}
