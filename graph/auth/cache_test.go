package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// countingKeys counts reads and can run something in the middle of one.
type countingKeys struct {
	keys
	reads  int
	during func()
}

func (k *countingKeys) APIKeyByHash(ctx context.Context, hash string) (*repo.APIKey, error) {
	k.reads++
	if k.during != nil {
		k.during()
	}
	return k.keys.APIKeyByHash(ctx, hash)
}

func TestCachedKeys(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	store := &countingKeys{keys: keys{byID: map[string]*repo.APIKey{
		"key_a": {ID: "key_a", WorkspaceID: "ws_a", SecretHash: "hash_a"},
	}}}
	c := &CachedKeys{Store: store, Clock: func() time.Time { return now }, TTL: 10 * time.Second}
	ctx := context.Background()
	read := func() *repo.APIKey {
		t.Helper()
		k, err := c.APIKeyByHash(ctx, "hash_a")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	t.Run("a warm key costs no read", func(t *testing.T) {
		read().Livemode = true // callers own their copy
		if k := read(); store.reads != 1 || k.Livemode {
			t.Fatalf("reads = %d, livemode = %v: want 1 read and an untouched cached copy", store.reads, k.Livemode)
		}
	})
	t.Run("the TTL ends it", func(t *testing.T) {
		now = now.Add(10 * time.Second)
		read()
		if store.reads != 2 {
			t.Fatalf("reads = %d after the TTL, want 2", store.reads)
		}
	})
	t.Run("Invalidate ends it", func(t *testing.T) {
		store.keys.byID["key_a"].Revoked = true
		c.Invalidate()
		if k := read(); store.reads != 3 || !k.Revoked {
			t.Fatalf("reads = %d, revoked = %v after Invalidate", store.reads, k.Revoked)
		}
	})
	t.Run("an unknown secret is read once per TTL", func(t *testing.T) {
		for range 2 {
			if _, err := c.APIKeyByHash(ctx, "hash_new"); !errors.Is(err, repo.ErrNotFound) {
				t.Fatalf("err = %v", err)
			}
		}
		if store.reads != 4 {
			t.Fatalf("reads = %d, want 4", store.reads)
		}
	})
	t.Run("a read that overlaps an invalidation is not kept", func(t *testing.T) {
		c.Invalidate()
		store.during = c.Invalidate
		read()
		store.during = nil
		read()
		if store.reads != 6 {
			t.Fatalf("reads = %d, want 6: the overlapping read must not be cached", store.reads)
		}
	})
}
