package resttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// NewQueueName is the name of an asynq queue of a test's own, so parallel
// tests never take each other's tasks; DropQueue deletes it.
func NewQueueName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b)
}

// DropQueue deletes every Redis key of an asynq queue a test made and takes
// it off asynq's list of queues; call it once the queue's servers have
// stopped. asynq's DeleteQueue is not enough: it refuses a queue with an
// active task (a killed worker leaves one, with its lease) and keeps the
// processed and failed counters. A key left behind fails the test.
func DropQueue(t testing.TB, queue string) {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.WithoutCancel(t.Context())
	if err := dropQueue(ctx, rdb, queue); err != nil {
		t.Errorf("drop asynq queue %s: %v", queue, err)
		return
	}
	if left, err := queueKeys(ctx, rdb, queue); err != nil || len(left) > 0 {
		t.Errorf("asynq queue %s left %v in Redis (%v)", queue, left, err)
	}
}

func dropQueue(ctx context.Context, rdb *redis.Client, queue string) error {
	keys, err := queueKeys(ctx, rdb, queue)
	if err != nil {
		return err
	}
	// The queue's keys share the hash tag {queue}, so one DEL takes them
	// all, on a cluster too.
	if len(keys) > 0 {
		if err := rdb.Del(ctx, keys...).Err(); err != nil {
			return err
		}
	}
	return rdb.SRem(ctx, "asynq:queues", queue).Err()
}

// queueKeys lists the keys of a queue, asynq:{queue}:…, and says whether
// asynq still lists the queue.
func queueKeys(ctx context.Context, rdb *redis.Client, queue string) ([]string, error) {
	if strings.ContainsAny(queue, `*?[]\`) {
		return nil, fmt.Errorf("queue name %q has glob characters", queue)
	}
	var keys []string
	iter := rdb.Scan(ctx, 0, "asynq:{"+queue+"}:*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, err
	}
	listed, err := rdb.SIsMember(ctx, "asynq:queues", queue).Result()
	if err != nil {
		return nil, err
	}
	if listed {
		keys = append(keys, "asynq:queues member "+queue)
	}
	return keys, nil
}
