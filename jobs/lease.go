package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lease lets one process of an installation do a periodic job per period:
// the first to take it in a period does the job, the others skip it. It
// lives in Redis (SET NX with an expiry), so a holder that dies frees it
// when the period ends.
type Lease struct {
	Redis redis.Cmdable
	// Key names the lease; installations sharing a Redis keep theirs
	// apart with their queue's name.
	Key string
}

// Take takes the lease for ttl; false when another process took it and it
// has not expired. The lease is never given back (it expires), so its value
// says nothing of its holder.
func (l Lease) Take(ctx context.Context, ttl time.Duration) (bool, error) {
	return l.Redis.SetNX(ctx, l.Key, "taken", ttl).Result()
}

// due says whether this process does the job of the period: it takes the
// lease for ttl, or cannot ask Redis (then it logs msg and does the job
// anyway); false when another process holds the lease.
func (l Lease) due(ctx context.Context, ttl time.Duration, msg string) bool {
	took, err := l.Take(ctx, ttl)
	if err != nil {
		slog.Warn(msg, "err", err)
		return true
	}
	return took
}

// TemplateSyncLease is the lease of the periodic template sync of the
// installation whose job queue is named queue.
func TemplateSyncLease(rdb redis.Cmdable, queue string) Lease {
	return Lease{Redis: rdb, Key: "msgsvc:lease:template_sync:" + queue}
}

// leasedSync is a Meta whose periodic sync of every number (workspace and
// account "") runs in one process per period; the sync of one number
// asked for (after a 132001) always runs.
type leasedSync struct {
	Meta
	lease Lease
	ttl   time.Duration
}

// LeasedTemplateSync makes the periodic template sync of m run once per
// interval across every worker of the installation, whichever takes the
// lease first. The lease expires a twentieth of the interval early, so
// that the holder's own next tick, never early by that much, finds it
// free. Without Redis every worker syncs, as when there was no lease.
func LeasedTemplateSync(m Meta, lease Lease, every time.Duration) Meta {
	return leasedSync{Meta: m, lease: lease, ttl: every - every/20}
}

func (l leasedSync) SyncTemplates(ctx context.Context, workspaceID, accountID string) error {
	if workspaceID == "" && accountID == "" &&
		!l.lease.due(ctx, l.ttl, "template sync: the lease in Redis could not be taken; syncing anyway") {
		return nil // another worker synced in this period
	}
	return l.Meta.SyncTemplates(ctx, workspaceID, accountID)
}
