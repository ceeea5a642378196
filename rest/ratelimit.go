package rest

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// Limiter decides whether one more request of a key fits its limits.
type Limiter interface {
	Allow(ctx context.Context, keyID string, perSecond, perMinute int) (remaining int, retryAfter time.Duration, err error)
}

// RedisLimiter keeps GCRA limits in Redis, so API processes share them.
type RedisLimiter struct {
	limiter *redis_rate.Limiter
	// Prefix namespaces the Redis keys (tests share one Redis).
	Prefix string
}

// NewRedisLimiter returns a limiter over a Redis client.
func NewRedisLimiter(rdb *redis.Client) *RedisLimiter {
	return &RedisLimiter{limiter: redis_rate.NewLimiter(rdb)}
}

// Allow spends one request from the per-second window, then the per-minute
// one; it answers the smaller remainder, or how long to wait.
func (l *RedisLimiter) Allow(ctx context.Context, keyID string, perSecond, perMinute int) (int, time.Duration, error) {
	sec, err := l.limiter.Allow(ctx, l.Prefix+"rl:s:"+keyID, redis_rate.PerSecond(perSecond))
	if err != nil {
		return 0, 0, err
	}
	if sec.Allowed == 0 {
		return 0, sec.RetryAfter, nil
	}
	min, err := l.limiter.Allow(ctx, l.Prefix+"rl:m:"+keyID, redis_rate.PerMinute(perMinute))
	if err != nil {
		return 0, 0, err
	}
	if min.Allowed == 0 {
		return 0, min.RetryAfter, nil
	}
	return int(math.Min(float64(sec.Remaining), float64(min.Remaining))), 0, nil
}

func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, keyID string, ws *repo.Workspace) error {
	remaining, retry, err := s.Limiter.Allow(r.Context(), keyID, ws.RatePerSecond, ws.RatePerMinute)
	if err != nil {
		return err
	}
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(ws.RatePerMinute))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	if retry > 0 {
		secs := int(math.Ceil(retry.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
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
