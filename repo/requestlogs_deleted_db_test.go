package repo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// The request log rows of a deleted conversation go at the purge, however
// late they were written, while its id is kept; the ids go once no batch
// can hold a row of them. The purge reads the log by conversation, never
// the whole of it, statistics or not.
func TestPurgeDeletedConversationLogs(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	repotest.Exec(t, store,
		`ALTER TABLE api_request_logs SET (autovacuum_enabled = false)`,
		`INSERT INTO api_request_logs (request_id, workspace_id, livemode, created_at, key_id, method, path, status,
			latency_ms, conversation_id)
			SELECT 'req_' || g, 'ws_del', false, '2026-11-29 08:00:00+00', 'key_del', 'GET', '/v1/conversations/{id}', 200, 1,
			'conv_' || (g % 5000) FROM generate_series(1, 50000) g`,
		`INSERT INTO deleted_conversations (id, deleted_at)
			VALUES ('conv_1', '2026-11-29 07:00:00+00'), ('conv_2', '2026-11-29 08:00:00+00')`,
	)
	plan := explain(t, store, repo.PurgeDeletedConversationLogsQuery)
	if strings.Contains(plan, "Seq Scan on api_request_logs") || !strings.Contains(plan, "api_request_logs_conversation") {
		t.Errorf("the purge reads the whole log, or not by conversation:\n%s", plan)
	}

	n, err := store.PurgeDeletedConversationLogs(ctx, at.Add(-10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var left, kept int
	if err := store.DB.GetContext(ctx, &left, `SELECT count(*) FROM api_request_logs`); err != nil {
		t.Fatal(err)
	}
	if err := store.DB.GetContext(ctx, &kept, `SELECT count(*) FROM deleted_conversations WHERE id = 'conv_2'`); err != nil {
		t.Fatal(err)
	}
	if n != 20 || left != 50000-20 {
		t.Errorf("purged %d rows, %d left; want the 20 of conv_1 and conv_2, 49,980 left", n, left)
	}
	var ids int
	if err := store.DB.GetContext(ctx, &ids, `SELECT count(*) FROM deleted_conversations`); err != nil {
		t.Fatal(err)
	}
	if ids != 1 || kept != 1 {
		t.Errorf("%d deleted ids kept (conv_2 %d); want conv_2 alone, deleted within the straggling time", ids, kept)
	}
}
