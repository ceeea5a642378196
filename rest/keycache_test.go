package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A key resolved once is served from the process's cache; a revocation
// announced on Redis stops it within a second (issue 16).
func TestRevokedKeyStopsWithinASecond(t *testing.T) {
	api := resttest.New(t)
	cache := &auth.CachedKeys{Store: api.Store, Clock: api.Clock.Now, TTL: time.Hour}
	api.Reconfigure(func(c *resttest.Config) { c.KeyCache = cache })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := auth.Listen(ctx, api.Redis, cache); err != nil {
		t.Fatal(err)
	}
	api.Want(api.Do("GET", "/v1/channels", "test_all", nil), 200, "")
	if _, err := api.Store.DB.Exec(`UPDATE api_keys SET revoked = true WHERE id = 'key_test_all'`); err != nil {
		t.Fatal(err)
	}
	// Behind the cache's back the key still works: the cache is in use.
	api.Want(api.Do("GET", "/v1/channels", "test_all", nil), 200, "")
	if err := auth.Announce(ctx, api.Redis); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		r := api.Do("GET", "/v1/channels", "test_all", nil)
		if r.Status == 401 && r.Code() == "key_revoked" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second after the announcement the revoked key still answers %d %s", r.Status, r.Raw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
