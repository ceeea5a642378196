package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// CachedKeys is a KeyStore that keeps the keys and workspaces it read for a
// short time, so an authenticated request costs no database round trip once
// its key is warm. Whatever changes keys or workspaces (the seeder) calls
// Invalidate, in this process directly and in every other one through
// InvalidationChannel (see Listen); the TTL bounds staleness should a notice
// be lost. An unknown secret is remembered as unknown for the TTL too (a
// stranger repeating one costs a read per TTL); a key that appears is
// announced, which forgets those, so it works at once.
type CachedKeys struct {
	Store KeyStore
	Clock clock.Clock
	TTL   time.Duration

	mu sync.Mutex
	// gen counts invalidations: a read that began before one is not kept.
	gen        uint64
	keys       map[string]cached[repo.APIKey] // by hash, and by workspace/id
	workspaces map[string]cached[repo.Workspace]
	// unknown are secret hashes no key has, until when they are believed.
	unknown map[string]time.Time
}

// maxUnknownKeys bounds the unknown secrets remembered: past it the
// remembered ones are forgotten wholesale (a stranger cycling keys gains
// nothing from it: each of theirs costs one read either way).
const maxUnknownKeys = 10000

type cached[T any] struct {
	v       T
	expires time.Time
}

// InvalidationChannel is the Redis pub/sub channel on which a change of keys
// or workspaces is announced to every process.
const InvalidationChannel = "msgsvc:auth:invalidate"

// APIKeyByHash reads a key by the hash of its secret.
func (c *CachedKeys) APIKeyByHash(ctx context.Context, hash string) (*repo.APIKey, error) {
	now := c.Clock.Now()
	c.mu.Lock()
	until, known := c.unknown[hash]
	gen := c.gen
	c.mu.Unlock()
	if known && now.Before(until) {
		return nil, repo.ErrNotFound
	}
	k, err := lookup(c, c.keyMap, "h:"+hash, func() (*repo.APIKey, error) { return c.Store.APIKeyByHash(ctx, hash) })
	if errors.Is(err, repo.ErrNotFound) {
		c.rememberUnknown(hash, gen, now.Add(c.TTL))
	}
	return k, err
}

// rememberUnknown notes a secret no key has, unless an invalidation came
// since the read began (the key may have appeared).
func (c *CachedKeys) rememberUnknown(hash string, gen uint64, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.unknown == nil || len(c.unknown) >= maxUnknownKeys {
		c.unknown = map[string]time.Time{}
	}
	c.unknown[hash] = until
}

// APIKey reads a key by id (a rolled key's successor).
func (c *CachedKeys) APIKey(ctx context.Context, workspaceID, id string) (*repo.APIKey, error) {
	return lookup(c, c.keyMap, "i:"+workspaceID+"/"+id, func() (*repo.APIKey, error) { return c.Store.APIKey(ctx, workspaceID, id) })
}

// Workspace reads a workspace.
func (c *CachedKeys) Workspace(ctx context.Context, id string) (*repo.Workspace, error) {
	return lookup(c, c.workspaceMap, id, func() (*repo.Workspace, error) { return c.Store.Workspace(ctx, id) })
}

// Invalidate forgets everything read so far.
func (c *CachedKeys) Invalidate() {
	c.mu.Lock()
	c.keys, c.workspaces, c.unknown = nil, nil, nil
	c.gen++
	c.mu.Unlock()
}

func (c *CachedKeys) keyMap() *map[string]cached[repo.APIKey]          { return &c.keys }
func (c *CachedKeys) workspaceMap() *map[string]cached[repo.Workspace] { return &c.workspaces }

// lookup answers from the cache or reads through it. Callers get their own
// copy: Authenticate changes the key it is given.
func lookup[T any](c *CachedKeys, m func() *map[string]cached[T], id string, read func() (*T, error)) (*T, error) {
	now := c.Clock.Now()
	c.mu.Lock()
	if e, ok := (*m())[id]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		v := e.v
		return &v, nil
	}
	gen := c.gen
	c.mu.Unlock()
	v, err := read()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if *m() == nil {
		*m() = map[string]cached[T]{}
	}
	if gen == c.gen {
		(*m())[id] = cached[T]{v: *v, expires: now.Add(c.TTL)}
	}
	c.mu.Unlock()
	copied := *v
	return &copied, nil
}

// Listen invalidates c whenever another process announces a change of keys
// or workspaces, until ctx ends. It returns once subscribed.
func Listen(ctx context.Context, rdb *redis.Client, c *CachedKeys) error {
	sub := rdb.Subscribe(ctx, InvalidationChannel)
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return fmt.Errorf("auth: subscribe to %s: %w", InvalidationChannel, err)
	}
	c.Invalidate() // whatever changed before the subscription took
	go func() {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-sub.Channel():
				if !ok {
					return
				}
				c.Invalidate()
			}
		}
	}()
	return nil
}

// Announce tells every process that keys or workspaces changed.
func Announce(ctx context.Context, rdb *redis.Client) error {
	if err := rdb.Publish(ctx, InvalidationChannel, "changed").Err(); err != nil {
		return fmt.Errorf("auth: announce a key change: %w", err)
	}
	return nil
}

// KeyChangeNotifier tells this process's cache and every other process
// (Announce) that keys changed: a revoked or rolled key stops at once
// here, elsewhere as soon as the notice arrives, and within the cache's
// TTL should it be lost.
type KeyChangeNotifier struct {
	Cache *CachedKeys
	// Redis is nil in a process alone (tests).
	Redis *redis.Client
}

// KeysChanged invalidates and announces; a lost announcement is logged.
func (n KeyChangeNotifier) KeysChanged(ctx context.Context) {
	if n.Cache != nil {
		n.Cache.Invalidate()
	}
	if n.Redis == nil {
		return
	}
	if err := Announce(ctx, n.Redis); err != nil {
		slog.Warn("other processes learn of the key change only when their cache expires", "ttl", n.ttl(), "err", err)
	}
}

func (n KeyChangeNotifier) ttl() time.Duration {
	if n.Cache == nil {
		return 0
	}
	return n.Cache.TTL
}
