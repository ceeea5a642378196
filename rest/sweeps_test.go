package rest_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestIdempotencyKeysArePurgedAfterADay(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": "purge@x.test"}, "Idempotency-Key", "k-1"), 201, "")
	count := func() int {
		var n int
		if err := api.Store.DB.Get(&n, `SELECT count(*) FROM idempotency_keys`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	api.Clock.Advance(24*time.Hour - time.Millisecond)
	if err := jobs.PurgeIdempotencyKeys(t.Context(), api.Store, api.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if count() != 1 {
		t.Fatal("a key was purged within its 24 hours")
	}
	// Still remembered: the same key and body replay.
	r := api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": "purge@x.test"}, "Idempotency-Key", "k-1"), 201, "")
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("no replay within 24 hours")
	}
	api.Clock.Advance(2 * time.Millisecond)
	if err := jobs.PurgeIdempotencyKeys(t.Context(), api.Store, api.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if count() != 0 {
		t.Error("a key older than 24 hours was kept")
	}
}
