package repo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestUnfannedPartitionsReadTheirIndex: after a burst the statistics still
// count many events waiting; the check then probes events_unfanned's key,
// not every waiting event, and answers right both ways. Inserting an event
// born otherwise than fanned out lists it there (the trigger of migration
// 0057); marking it fanned out takes it off.
func TestUnfannedPartitionsReadTheirIndex(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_fan', 'Fan', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at)
			SELECT 'evt_' || g, 'ws_fan', false, 'message.sent', '{}', now() FROM generate_series(1, 5000) g`,
		`ANALYZE events, events_unfanned`,
		`DELETE FROM events_unfanned`,
	)
	if parts, err := store.UnfannedPartitions(ctx); err != nil || len(parts) != 0 {
		t.Fatalf("every event fanned out: UnfannedPartitions = %v, %v", parts, err)
	}
	var plan []string
	if err := store.DB.SelectContext(ctx, &plan, `EXPLAIN `+repo.UnfannedPartitionsQuery); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "events_unfanned_pkey") || strings.Contains(text, "Seq Scan") {
		t.Errorf("the check does not probe events_unfanned's key:\n%s", text)
	}
	if _, err := store.DB.ExecContext(ctx, `INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at)
		VALUES ('evt_5001', 'ws_fan', false, 'message.sent', '{}', now())`); err != nil {
		t.Fatal(err)
	}
	// 'n' is 110: ws_fan is partition 6.
	if parts, err := store.UnfannedPartitions(ctx); err != nil || len(parts) != 1 || parts[0] != 6 {
		t.Fatalf("one event waits: UnfannedPartitions = %v, %v; want [6]", parts, err)
	}
	events, err := store.UnfannedEvents(ctx, 6, 10)
	if err != nil || len(events) != 1 || events[0].ID != "evt_5001" {
		t.Fatalf("UnfannedEvents(6) = %+v, %v; want evt_5001", events, err)
	}
	if err := store.MarkFannedOut(ctx, 6, []int64{events[0].Seq}); err != nil {
		t.Fatal(err)
	}
	if parts, err := store.UnfannedPartitions(ctx); err != nil || len(parts) != 0 {
		t.Fatalf("fanned out: UnfannedPartitions = %v, %v; want none", parts, err)
	}
}

// TestUnfannedPartitions: the partitions with waiting events, by the last
// character of the workspace id, and a partition's events in seq order.
func TestUnfannedPartitions(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_pa', 'A', 'free', 'active', 10, 10, 100), ('ws_pi', 'I', 'free', 'active', 10, 10, 100),
			('ws_pc', 'C', 'free', 'active', 10, 10, 100)`,
		// 'a' (97) and 'i' (105) are partition 1, 'c' (99) partition 3.
		`INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at) VALUES
			('evt_a', 'ws_pa', false, 'contact.created', '{}', now()),
			('evt_i', 'ws_pi', false, 'contact.created', '{}', now()),
			('evt_c', 'ws_pc', false, 'contact.created', '{}', now())`,
		`DELETE FROM events_unfanned WHERE seq = (SELECT seq FROM events WHERE id = 'evt_c')`,
	)
	parts, err := store.UnfannedPartitions(ctx)
	if err != nil || len(parts) != 1 || parts[0] != 1 {
		t.Fatalf("UnfannedPartitions = %v, %v; want [1]", parts, err)
	}
	events, err := store.UnfannedEvents(ctx, 1, 10)
	if err != nil || len(events) != 2 || events[0].ID != "evt_a" || events[1].ID != "evt_i" {
		t.Fatalf("UnfannedEvents(1) = %+v, %v; want evt_a, evt_i", events, err)
	}
}

// TestEveryPartitionIsProbed: events of workspaces whose ids end in every
// digit and letter fall in every partition the trigger gives, and
// UnfannedPartitions lists each of them (both take the partitioning from
// migration 0061's functions).
func TestEveryPartitionIsProbed(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			SELECT 'ws_p' || c, c, 'free', 'active', 10, 10, 100
			FROM regexp_split_to_table('0123456789abcdefghijklmnopqrstuvwxyz', '') c`,
		`INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at)
			SELECT 'evt_' || id, id, false, 'contact.created', '{}', now() FROM workspaces WHERE id LIKE 'ws_p_'`,
	)
	var given []int
	if err := store.DB.SelectContext(ctx, &given, `SELECT DISTINCT part FROM events_unfanned ORDER BY part`); err != nil {
		t.Fatal(err)
	}
	parts, err := store.UnfannedPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(given) != 8 || fmt.Sprint(parts) != fmt.Sprint(given) {
		t.Fatalf("the trigger gave partitions %v and UnfannedPartitions lists %v; want the same 8", given, parts)
	}
}
