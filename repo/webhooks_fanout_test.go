package repo_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestHasUnfannedEventsReadsItsIndex: after a burst the statistics still
// count the events unfanned; the check then reads the partial index
// events_unfanned, not every event of the table, and answers right both
// ways.
func TestHasUnfannedEventsReadsItsIndex(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	for _, q := range []string{
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_fan', 'Fan', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at)
			SELECT 'evt_' || g, 'ws_fan', false, 'message.sent', '{}', now() FROM generate_series(1, 5000) g`,
		`ANALYZE events`,
		`UPDATE events SET fanned_out = true`,
	} {
		if _, err := store.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if more, err := store.HasUnfannedEvents(ctx); err != nil || more {
		t.Fatalf("every event fanned out: HasUnfannedEvents = %v, %v", more, err)
	}
	var plan []string
	if err := store.DB.SelectContext(ctx, &plan, `EXPLAIN `+repo.UnfannedFirst); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "events_unfanned") || strings.Contains(text, "Seq Scan") {
		t.Errorf("the check does not read events_unfanned:\n%s", text)
	}
	if _, err := store.DB.ExecContext(ctx, `UPDATE events SET fanned_out = false WHERE id = 'evt_4000'`); err != nil {
		t.Fatal(err)
	}
	if more, err := store.HasUnfannedEvents(ctx); err != nil || !more {
		t.Fatalf("one event waits: HasUnfannedEvents = %v, %v", more, err)
	}
}
