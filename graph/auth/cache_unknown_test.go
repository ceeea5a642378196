package auth

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// TestUnknownSecretIsReadOncePerTTL: a stranger repeating one random key
// costs one store read per TTL, not one per request; a key that appears
// (announced, so Invalidate runs) works at once; the remembered unknown
// secrets are bounded.
func TestUnknownSecretIsReadOncePerTTL(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	store := &countingKeys{keys: keys{byID: map[string]*repo.APIKey{}}}
	c := &CachedKeys{Store: store, Clock: func() time.Time { return now }, TTL: 5 * time.Second}
	ctx := context.Background()
	for range 100 {
		if _, err := c.APIKeyByHash(ctx, "hash_random"); !errors.Is(err, repo.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	}
	if store.reads != 1 {
		t.Fatalf("100 requests with one unknown key cost %d reads, want 1", store.reads)
	}
	now = now.Add(5 * time.Second)
	_, _ = c.APIKeyByHash(ctx, "hash_random")
	if store.reads != 2 {
		t.Fatalf("after the TTL: %d reads, want 2", store.reads)
	}
	store.keys.byID["key_new"] = &repo.APIKey{ID: "key_new", WorkspaceID: "ws_a", SecretHash: "hash_random"}
	c.Invalidate()
	if k, err := c.APIKeyByHash(ctx, "hash_random"); err != nil || k.ID != "key_new" {
		t.Fatalf("a key created and announced: %v, %v", k, err)
	}
	for i := range maxUnknownKeys + 10 {
		_, _ = c.APIKeyByHash(ctx, fmt.Sprint("hash_", i))
	}
	if n := len(c.unknown); n > maxUnknownKeys {
		t.Fatalf("%d unknown secrets remembered, over the bound %d", n, maxUnknownKeys)
	}
}
