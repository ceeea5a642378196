package auth

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// TestKeyChangeNotifierStopsARevokedKeyAtOnce: the portal's revoke tells
// the cache, so this process never serves the revoked key from it, even
// within the TTL (the bound for other processes when a notice is lost).
func TestKeyChangeNotifierStopsARevokedKeyAtOnce(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	key := &repo.APIKey{ID: "key_a", WorkspaceID: "ws_a", SecretHash: "hash_a"}
	store := &countingKeys{keys: keys{byID: map[string]*repo.APIKey{"key_a": key}}}
	c := &CachedKeys{Store: store, Clock: func() time.Time { return now }, TTL: 5 * time.Second}
	ctx := context.Background()
	if k, err := c.APIKeyByHash(ctx, "hash_a"); err != nil || k.Revoked {
		t.Fatalf("%+v, %v", k, err)
	}
	key.Revoked = true
	if k, _ := c.APIKeyByHash(ctx, "hash_a"); k.Revoked || store.reads != 1 {
		t.Fatalf("the warm key was read again: the test shows nothing")
	}
	KeyChangeNotifier{Cache: c}.KeysChanged(ctx) // no Redis: this process only
	if k, err := c.APIKeyByHash(ctx, "hash_a"); err != nil || !k.Revoked || store.reads != 2 {
		t.Errorf("after the notice: %+v, %v, %d reads; want the revoked key, read again", k, err, store.reads)
	}
	KeyChangeNotifier{}.KeysChanged(ctx) // nothing to tell: no panic
}
