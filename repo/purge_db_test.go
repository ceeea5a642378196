package repo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// The purges delete the rows older than their cutoff, a batch at a time,
// through the block range indexes of migration 0055, and keep the rest; a
// purged event that waited for the fan-out leaves events_unfanned too.
func TestPurgesTakeTheOldestOnly(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	cutoff := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at, born_fanned_out)
			SELECT 'evt_' || g, 'ws_purge', false, 'message.sent', '{}', $1::timestamptz + (g - 300) * interval '1 hour', g % 100 <> 0
			FROM generate_series(1, 500) g`,
		`INSERT INTO api_request_logs (request_id, workspace_id, livemode, created_at, key_id, method, path, status, latency_ms)
			SELECT 'req_' || g, 'ws_purge', false, $1::timestamptz + (g - 300) * interval '1 hour', 'key_purge', 'GET', '/v1/channels', 200, 1
			FROM generate_series(1, 500) g`,
	} {
		if _, err := store.DB.ExecContext(ctx, q, cutoff); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for name, purge := range map[string]func(time.Time, int) (int64, error){
		"events": func(before time.Time, limit int) (int64, error) { return store.PurgeEvents(ctx, before, limit) },
		"api_request_logs": func(before time.Time, limit int) (int64, error) {
			return store.PurgeRequestLogs(ctx, before, limit)
		},
	} {
		var total int64
		for {
			n, err := purge(cutoff, 100)
			if err != nil {
				t.Fatal(err)
			}
			if n > 100 {
				t.Fatalf("%s: a batch of %d, limit 100", name, n)
			}
			if total += n; n == 0 {
				break
			}
		}
		var left, old int
		if err := store.DB.GetContext(ctx, &left, `SELECT count(*) FROM `+name); err != nil {
			t.Fatal(err)
		}
		if err := store.DB.GetContext(ctx, &old, `SELECT count(*) FROM `+name+` WHERE created_at < $1`, cutoff); err != nil {
			t.Fatal(err)
		}
		if total != 299 || left != 201 || old != 0 {
			t.Errorf("%s: purged %d, %d left (%d older than the cutoff); want 299, 201, 0", name, total, left, old)
		}
	}
	// Events still waiting for the fan-out (every hundredth) leave
	// events_unfanned with their rows: none is left waiting for an event
	// that is gone.
	var waiting []string
	if err := store.DB.SelectContext(ctx, &waiting, `SELECT e.id FROM events_unfanned u JOIN events e ON e.seq = u.seq ORDER BY e.id`); err != nil {
		t.Fatal(err)
	}
	var listed int
	if err := store.DB.GetContext(ctx, &listed, `SELECT count(*) FROM events_unfanned`); err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 3 || listed != 3 {
		t.Errorf("waiting for the fan-out after the purge: %v of %d listed; want evt_300, evt_400, evt_500", waiting, listed)
	}
}

// A deleted conversation's events that still waited for the fan-out leave
// events_unfanned with them (it has no foreign key to events, migration
// 0062); another conversation's stay listed.
func TestDeleteConversationTakesItsWaitingEvents(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_gone', 'Gone', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO websites (id, workspace_id, name, domains) VALUES ('web_gone', 'ws_gone', 'Gone', '{}')`,
		`INSERT INTO conversations (id, workspace_id, livemode, channel, account_id, website_id, status, mode,
			created_at, updated_at, last_message_at)
			SELECT 'conv_' || c, 'ws_gone', false, 'website', 'web_gone', 'web_gone', 'open', 'ai', now(), now(), now()
			FROM unnest(ARRAY['gone', 'kept']) c`,
		`INSERT INTO events (id, workspace_id, livemode, type, conversation_id, envelope, created_at, born_fanned_out)
			SELECT 'evt_' || c || g, 'ws_gone', false, 'message.sent', 'conv_' || c, '{}', now(), g = 3
			FROM unnest(ARRAY['gone', 'kept']) c, generate_series(1, 3) g`,
	)
	if _, err := store.DeleteConversation(ctx, &repo.Conversation{ID: "conv_gone", WorkspaceID: "ws_gone"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var listed []string
	if err := store.DB.SelectContext(ctx, &listed, `SELECT coalesce(e.id, 'an event that is gone') FROM events_unfanned u
		LEFT JOIN events e ON e.seq = u.seq ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(listed, " ") != "evt_kept1 evt_kept2" {
		t.Errorf("waiting for the fan-out after the deletion: %v; want evt_kept1 evt_kept2", listed)
	}
}
