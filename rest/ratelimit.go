package rest

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// Limiter decides whether one more request of a key fits its limits.
type Limiter interface {
	Allow(ctx context.Context, keyID string, perSecond, perMinute int) (Decision, error)
}

// Decision is a limiter's answer about one request, all of it about one
// window, the tightest: the one that refused it (the longest wait, when
// both did), or else the one with the fewest requests left (of two with
// as few, the one longer to be whole again). Remaining and Reset are the
// X-RateLimit-Remaining and X-RateLimit-Reset headers.
type Decision struct {
	// Limit is the window's rate (requests per second or per minute); 0
	// when the key has no limit at all.
	Limit int
	// Remaining is what is left of the window after this request.
	Remaining int
	// Reset is how long until the window is whole again (GCRA: every
	// request spent has been given back).
	Reset time.Duration
	// RetryAfter is, for a refused request, how long until one more fits;
	// 0 when it was allowed.
	RetryAfter time.Duration
}

// Redis outages, as the rate limiter sees them.
const (
	// redisDecisionTimeout bounds one decision in Redis, so a Redis that
	// hangs slows no request by more than this.
	redisDecisionTimeout = 250 * time.Millisecond
	// redisProbeEvery is how often one request tries Redis again while it
	// is down; the others are limited in the process meanwhile.
	redisProbeEvery = time.Second
)

// RedisLimiter keeps GCRA limits in Redis, so API processes share them.
// A key sending many requests a second takes them from Redis several at a
// time (leases, ratelimit_lease.go). While Redis does not answer it limits
// in the process instead, with the same limits (a LocalLimiter): reads and
// sends go on, each process counting on its own, rather than every request
// failing.
type RedisLimiter struct {
	rdb *redis.Client
	// Prefix namespaces the Redis keys (tests share one Redis).
	Prefix string
	now    func() time.Time

	fallback *LocalLimiter
	// down is set from a failed decision in Redis until one succeeds;
	// probeAt (Unix nanoseconds) is when Redis is tried next meanwhile.
	down    atomic.Bool
	probeAt atomic.Int64

	leases leases
}

// NewRedisLimiter returns a limiter over a Redis client.
func NewRedisLimiter(rdb *redis.Client) *RedisLimiter {
	return &RedisLimiter{rdb: rdb, now: time.Now, fallback: NewLocalLimiter(time.Now)}
}

// Allow spends one request from the per-second and the per-minute window
// (allowWindows) and answers the tightest of them. A key without limits
// costs nothing; a key whose limits allow leases is answered from its
// lease while it lasts.
func (l *RedisLimiter) Allow(ctx context.Context, keyID string, perSecond, perMinute int) (Decision, error) {
	if perSecond <= 0 && perMinute <= 0 {
		return Decision{}, nil
	}
	most := leaseCap(perSecond, perMinute)
	if most == 1 {
		d, _, _, err := l.allow(ctx, keyID, perSecond, perMinute, 1)
		return d, err
	}
	ls := l.leases.of(keyID, l.now())
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := l.now()
	if d, ok := ls.use(now, perSecond, perMinute); ok {
		return d, nil
	}
	d, n, period, err := l.allow(ctx, keyID, perSecond, perMinute, ls.size(now, most))
	if err != nil || n == 0 || period == 0 {
		ls.forget()
		return d, err
	}
	return ls.took(now, perSecond, perMinute, d, n, period), nil
}

// allow spends up to want requests of a key in Redis, or one in the
// process while Redis does not answer: the decision for the last request
// spent, how many were spent and the tightest window's period (0 when
// decided in the process).
func (l *RedisLimiter) allow(ctx context.Context, keyID string, perSecond, perMinute, want int) (d Decision, n int, period time.Duration, err error) {
	err = l.decide(ctx, func(ctx context.Context) error {
		d, n, period, err = l.allowInRedis(ctx, want, window{"rl:s:" + keyID, perSecond, time.Second},
			window{"rl:m:" + keyID, perMinute, time.Minute})
		return err
	}, func(ctx context.Context) error {
		d, err = l.fallback.Allow(ctx, keyID, perSecond, perMinute)
		n, period = 1, 0
		return err
	})
	return d, n, period, err
}

// decide makes a decision in Redis, bounded by redisDecisionTimeout, or in
// the process when Redis does not answer or is known to be down.
func (l *RedisLimiter) decide(ctx context.Context, inRedis, inProcess func(context.Context) error) error {
	if l.useRedis() {
		rctx, cancel := context.WithTimeout(ctx, redisDecisionTimeout)
		err := inRedis(rctx)
		cancel()
		if err == nil {
			l.answered()
			return nil
		}
		l.failed(err)
	}
	metrics.ObserveRateLimitFallback()
	return inProcess(ctx)
}

// allowWindows is redis_rate's GCRA (burst = rate) over several windows
// of a key in one script, so a request costs one Redis round trip rather
// than one per window; a request any window refuses spends from none.
// It spends up to the last ARGV requests at once (a lease, leaseFor): as
// many as every window has room for, at least one or none.
// KEYS: the windows; ARGV: each window's rate and period in seconds (a rate
// of 0 or less: no limit), then how many requests to spend. Answers the
// tightest window after the spending (Decision): {remaining, retry-after
// seconds as a string, rate, reset seconds as a string, requests spent,
// the window's period in seconds}.
var allowWindows = redis.NewScript(`
redis.replicate_commands()
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + (t[2] / 1000000)
local want = tonumber(ARGV[#ARGV])
local tat, fit = {}, {}
local retry, retryRate, retryReset, retryPeriod = 0, 0, 0, 0
for i = 1, #KEYS do
  local r, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  if r > 0 then
    local interval = period / r
    tat[i] = math.max(tonumber(redis.call("GET", KEYS[i])) or now, now)
    local diff = now - (tat[i] + interval - interval * r)
    if diff < 0 then
      if -diff > retry then
        retry, retryRate, retryReset, retryPeriod = -diff, r, tat[i] - now, period
      end
    else
      fit[i] = math.floor(diff / interval) + 1
      want = math.min(want, fit[i])
    end
  end
end
if retry > 0 then
  return {0, tostring(retry), retryRate, tostring(retryReset), 0, retryPeriod}
end
local left, rate, reset, per = nil, 0, 0, 0
for i = 1, #KEYS do
  if tat[i] then
    local r, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
    local next = tat[i] + want * period / r
    redis.call("SET", KEYS[i], next, "EX", math.ceil(next - now))
    local rem = fit[i] - want
    if left == nil or rem < left or (rem == left and next - now > reset) then
      left, rate, reset, per = rem, r, next - now, period
    end
  end
end
return {left or 0, "0", rate, tostring(reset), want, per}
`)

// allowInRedis runs allowWindows over windows of "rate:"-prefixed keys
// (redis_rate's names), given as key, rate, period in seconds, spending up
// to want requests. It answers the decision for the last request spent,
// how many were spent and the tightest window's period.
func (l *RedisLimiter) allowInRedis(ctx context.Context, want int, windows ...window) (d Decision, spent int, period time.Duration, err error) {
	keys, args := make([]string, len(windows)), make([]any, 0, 2*len(windows)+1)
	for i, w := range windows {
		keys[i] = "rate:" + l.Prefix + w.key
		args = append(args, w.rate, int(w.period/time.Second))
	}
	v, err := allowWindows.Run(ctx, l.rdb, keys, append(args, want)...).Slice()
	if err != nil {
		return Decision{}, 0, 0, err
	}
	if len(v) != 6 {
		return Decision{}, 0, 0, fmt.Errorf("rate limits: %d values answered, want 6", len(v))
	}
	remaining, _ := v[0].(int64)
	rate, _ := v[2].(int64)
	n, _ := v[4].(int64)
	secs, _ := v[5].(int64)
	d = Decision{Limit: int(rate), Remaining: int(remaining)}
	for _, f := range []struct {
		text any
		to   *time.Duration
	}{{v[1], &d.RetryAfter}, {v[3], &d.Reset}} {
		text, _ := f.text.(string)
		s, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return Decision{}, 0, 0, fmt.Errorf("rate limits: seconds %q: %w", text, err)
		}
		*f.to = time.Duration(s * float64(time.Second))
	}
	return d, int(n), time.Duration(secs) * time.Second, nil
}

// window is one limit of a key: rate requests per period.
type window struct {
	key    string
	rate   int
	period time.Duration
}

// useRedis tells whether this decision goes to Redis: always while it
// answers; while it is down, one decision per redisProbeEvery.
func (l *RedisLimiter) useRedis() bool {
	if !l.down.Load() {
		return true
	}
	at, now := l.probeAt.Load(), time.Now().UnixNano()
	return now >= at && l.probeAt.CompareAndSwap(at, now+int64(redisProbeEvery))
}

// failed notes a decision Redis did not make; the first of an outage is
// logged, not every request of it.
func (l *RedisLimiter) failed(err error) {
	l.probeAt.Store(time.Now().Add(redisProbeEvery).UnixNano())
	if l.down.CompareAndSwap(false, true) {
		slog.Warn("rate limits: Redis is not answering; each API process limits requests on its own until it does", "err", err)
	}
}

// answered notes a decision Redis made, ending an outage.
func (l *RedisLimiter) answered() {
	if l.down.Load() && l.down.CompareAndSwap(true, false) {
		slog.Info("rate limits: Redis answers again; limits are shared by every API process again")
	}
}

func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, keyID string, ws *repo.Workspace) error {
	d, err := s.Limiter.Allow(r.Context(), keyID, ws.RatePerSecond, ws.RatePerMinute)
	if err != nil {
		return err
	}
	h := w.Header()
	// The per-minute limit beside the smaller remainder of the two windows
	// (the API's contract); Reset is when the window Remaining counts is
	// whole again.
	h.Set("X-RateLimit-Limit", strconv.Itoa(ws.RatePerMinute))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.Itoa(int(math.Ceil(d.Reset.Seconds()))))
	if d.RetryAfter > 0 {
		secs := int(math.Ceil(d.RetryAfter.Seconds()))
		h.Set("Retry-After", strconv.Itoa(secs))
		return apierr.New(apierr.RateLimited, "Too many requests for this key; retry after %s.", seconds(secs))
	}
	return nil
}

// seconds says n seconds in English: "1 second", "2 seconds".
func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}
