package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// InstagramTokenEvery is how often Instagram Login tokens are checked for
// a refresh: a token is refreshed within a day of becoming due.
const InstagramTokenEvery = time.Hour

// InstagramTokens refreshes the Instagram Login tokens that are due;
// instagram.Tokens is one.
type InstagramTokens interface {
	Refresh(ctx context.Context) error
}

// InstagramTokenLease is the lease of the token refresh of the
// installation whose job queue is named queue.
func InstagramTokenLease(rdb redis.Cmdable, queue string) Lease {
	return Lease{Redis: rdb, Key: "msgsvc:lease:instagram_tokens:" + queue}
}

// RunInstagramTokenRefresh refreshes due tokens at start and every
// interval until ctx ends, in one process per interval across the
// installation (the lease; without Redis every process refreshes, and the
// store keeps one refresh of a token).
func RunInstagramTokenRefresh(ctx context.Context, t InstagramTokens, lease Lease, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		InstagramTokenPass(ctx, t, lease, every-every/20)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// InstagramTokenPass is one pass of the refresh: it refreshes when it takes
// the lease for ttl (or cannot ask Redis), and skips when another process
// holds it.
func InstagramTokenPass(ctx context.Context, t InstagramTokens, lease Lease, ttl time.Duration) {
	if lease.Redis != nil && !lease.due(ctx, ttl, "instagram token refresh: the lease in Redis could not be taken; refreshing anyway") {
		return
	}
	if err := t.Refresh(ctx); err != nil && ctx.Err() == nil {
		slog.Warn("instagram token refresh", "err", err)
	}
}
