package repo_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestEventsBornFannedOut: an event no endpoint of its workspace could take
// is stored fanned out, so no fan-out pass updates it; one an endpoint
// might take waits for the fan-out, which decides with every rule. Both
// the single insert (held, as a send writes it) and the batch.
func TestEventsBornFannedOut(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	for _, q := range []string{
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_none', 'N', 'free', 'active', 10, 10, 100), ('ws_hook', 'H', 'free', 'active', 10, 10, 100)`,
		// ws_hook: one live-only endpoint for message.sent, one test-events
		// endpoint switched off, one deleted and one never verified.
		`INSERT INTO webhook_endpoints (id, workspace_id, url, events, test_events, enabled, verified_at, secret, created_at, deleted_at)
			VALUES ('we_live', 'ws_hook', 'https://a.test', '{message.sent}', false, true, now(), '\x00', now(), NULL),
			('we_off', 'ws_hook', 'https://b.test', '{*}', true, false, now(), '\x00', now(), NULL),
			('we_gone', 'ws_hook', 'https://c.test', '{*}', true, true, now(), '\x00', now(), now()),
			('we_new', 'ws_hook', 'https://d.test', '{*}', true, true, NULL, '\x00', now(), NULL)`,
	} {
		if _, err := store.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	now := time.Now()
	ev := func(id, ws string, live bool, typ string) *repo.Event {
		return &repo.Event{ID: id, WorkspaceID: ws, Livemode: live, Type: typ, Envelope: repo.JSONB(`{}`), CreatedAt: now}
	}
	one := []*repo.Event{
		ev("evt_none", "ws_none", true, "message.sent"),
		ev("evt_live_sent", "ws_hook", true, "message.sent"),
		ev("evt_live_status", "ws_hook", true, "message.status"),
		ev("evt_test_sent", "ws_hook", false, "message.sent"),
	}
	err := store.InTx(ctx, func(q repo.Queries) error {
		for _, e := range one {
			if err := q.InsertEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	batch := []*repo.Event{
		ev("evt_b_none", "ws_none", false, "contact.created"),
		ev("evt_b_live_sent", "ws_hook", true, "message.sent"),
		ev("evt_b_test_sent", "ws_hook", false, "message.sent"),
	}
	if err := store.InsertEvents(ctx, batch); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"evt_none": true, "evt_live_sent": false, "evt_live_status": true, "evt_test_sent": true,
		"evt_b_none": true, "evt_b_live_sent": false, "evt_b_test_sent": true,
	}
	rows, err := store.DB.QueryContext(ctx, `SELECT e.id, e.born_fanned_out AND NOT EXISTS (SELECT 1 FROM events_unfanned u WHERE u.seq = e.seq) FROM events e`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id string
		var fanned bool
		if err := rows.Scan(&id, &fanned); err != nil {
			t.Fatal(err)
		}
		seen++
		if fanned != want[id] {
			t.Errorf("%s: fanned_out %v, want %v", id, fanned, want[id])
		}
	}
	if seen != len(want) {
		t.Errorf("%d events stored, want %d", seen, len(want))
	}
}
