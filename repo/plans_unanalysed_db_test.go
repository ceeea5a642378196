package repo_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// unanalysed seeds 16,000 website conversations of one workspace, each with
// a contact of its own, as 16,000 visitors leave them, and no statistics:
// the tables are never analysed (autovacuum off, nothing run after a
// migration), so the planner knows only their sizes on disk.
func unanalysed(t *testing.T) *repo.Store {
	t.Helper()
	store := repotest.NewStore(t)
	for _, q := range []string{
		`ALTER TABLE conversations SET (autovacuum_enabled = false)`,
		`ALTER TABLE contacts SET (autovacuum_enabled = false)`,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_plan', 'Plan', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO websites (id, workspace_id, name, domains) VALUES ('web_plan', 'ws_plan', 'Plan', '{}')`,
		`INSERT INTO contacts (id, workspace_id, livemode, name, created_at, updated_at)
			SELECT 'ct_' || g, 'ws_plan', true, 'Visitor ' || g, now(), now() FROM generate_series(1, 16000) g`,
		`INSERT INTO conversations (id, workspace_id, livemode, channel, account_id, website_id, contact_id,
			status, mode, created_at, updated_at, last_message_at)
			SELECT 'conv_' || g, 'ws_plan', true, 'website', 'web_plan', 'web_plan', 'ct_' || g, 'open', 'ai',
				now() - g * interval '1 second', now(), now() FROM generate_series(1, 16000) g`,
	} {
		if _, err := store.DB.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// reltuples is -1 until a table is first analysed (or vacuumed).
	var analysed int
	if err := store.DB.GetContext(t.Context(), &analysed, `SELECT count(*) FROM pg_class
		WHERE relname IN ('conversations', 'contacts') AND reltuples >= 0`); err != nil {
		t.Fatal(err)
	}
	if analysed != 0 {
		t.Fatalf("%d of the tables were analysed; the test needs them without statistics", analysed)
	}
	return store
}

// explain is the plan Postgres makes for a statement, as text: its custom
// plan (for these arguments), then its generic plan (the one a prepared
// statement may keep after five runs: the statement prepared, then
// EXPLAIN EXECUTE under plan_cache_mode force_generic_plan).
func explain(t *testing.T, store *repo.Store, query string, args ...any) string {
	t.Helper()
	ctx := t.Context()
	var custom, generic []string
	if err := store.DB.SelectContext(ctx, &custom, `EXPLAIN `+query, args...); err != nil {
		t.Fatal(err)
	}
	conn, err := store.DB.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	params := make([]string, len(args)) // as literals: EXECUTE takes no bound parameters
	for i, a := range args {
		if v, ok := a.(driver.Valuer); ok {
			var err error
			if a, err = v.Value(); err != nil {
				t.Fatal(err)
			}
		}
		switch v := a.(type) {
		case bool:
			params[i] = fmt.Sprint(v)
		case []byte:
			params[i] = "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
		default:
			params[i] = "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
		}
	}
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE explained AS ` + query} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DEALLOCATE explained; RESET plan_cache_mode`) //nolint:errcheck
	execute := `EXPLAIN EXECUTE explained`
	if len(params) > 0 {
		execute += `(` + strings.Join(params, ", ") + `)`
	}
	if err := conn.SelectContext(ctx, &generic, execute); err != nil {
		t.Fatal(err)
	}
	return "custom plan:\n" + strings.Join(custom, "\n") + "\ngeneric plan:\n" + strings.Join(generic, "\n")
}

// TestLatestConversationPlanWithoutStatistics: a contact's latest
// conversation is found through the index that holds the contact's
// conversations in created_at order (one probe of conversations_latest)
// whatever the statistics, not by walking the workspace's conversations
// newest first until the contact's comes up (conversations_list: every
// conversation of the workspace for an old visitor). Checked on the plan,
// not on time.
func TestLatestConversationPlanWithoutStatistics(t *testing.T) {
	store := unanalysed(t)
	query, args := repo.LatestConversationStatement(repo.Scope{WorkspaceID: "ws_plan", Livemode: true},
		"ct_15999", "website", "web_plan", false)
	plan := explain(t, store, query, args...)
	if !strings.Contains(plan, "conversations_latest") || strings.Contains(plan, "conversations_list") ||
		strings.Contains(plan, "Seq Scan on conversations") {
		t.Errorf("LatestConversation does not probe conversations_latest:\n%s", plan)
	}
	c, err := store.LatestConversation(t.Context(), repo.Scope{WorkspaceID: "ws_plan", Livemode: true},
		"ct_15999", "website", "web_plan", false)
	if err != nil || c.ID != "conv_15999" {
		t.Fatalf("LatestConversation = %+v, %v; want conv_15999", c, err)
	}
}

// TestMigrateAnalysesWhatItApplied: `msgsvc migrate` (MigrateAnalyzed)
// analyses the database after it applied a migration, so the planner has
// statistics from then on; with nothing to apply it leaves the database as
// it is.
func TestMigrateAnalysesWhatItApplied(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	analysed := func() bool {
		// reltuples is -1 until the table is first analysed (or vacuumed).
		var reltuples float64
		if err := store.DB.GetContext(ctx, &reltuples, `SELECT reltuples FROM pg_class WHERE oid = 'conversations'::regclass`); err != nil {
			t.Fatal(err)
		}
		return reltuples >= 0
	}
	if applied, err := store.MigrateAnalyzed(ctx); err != nil || applied != 0 || analysed() {
		t.Fatalf("nothing to apply: applied %d, %v, analysed %v; want 0, nil, false", applied, err, analysed())
	}
	for _, q := range []string{
		`DELETE FROM schema_migrations WHERE version = 53`,
		`DROP INDEX conversations_latest`,
		`CREATE INDEX conversations_contact ON conversations (workspace_id, livemode, contact_id, channel, account_id)`,
	} {
		if _, err := store.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if applied, err := store.MigrateAnalyzed(ctx); err != nil || applied != 1 {
		t.Fatalf("migration 0053 again: applied %d, %v; want 1, nil", applied, err)
	}
	if !analysed() {
		t.Error("conversations was not analysed after the migration")
	}
}

// TestInboxPlans: each inbox view reads its page through its own index of
// conversation_activity, in the index's order (no sort of the workspace's
// conversations), once the tables have statistics (msgsvc migrate and
// autovacuum analyse them).
func TestInboxPlans(t *testing.T) {
	store := unanalysed(t)
	if _, err := store.DB.ExecContext(t.Context(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	s := repo.Scope{WorkspaceID: "ws_plan", Livemode: true}
	for view, index := range map[string]string{
		repo.ViewAll:      "conversation_activity_all",
		repo.ViewMine:     "conversation_activity_mine",
		repo.ViewAI:       "conversation_activity_mode",
		repo.ViewExternal: "conversation_activity_mode",
		repo.ViewClosed:   "conversation_activity_closed",
		repo.ViewWaiting:  "conversations_inbox_waiting",
	} {
		query, args, err := repo.InboxStatement(s, repo.InboxFilter{View: view, MemberID: "usr_plan"}, repo.Page{Limit: 25})
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		if err := store.DB.SelectContext(t.Context(), &plan, `EXPLAIN `+query, args...); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, index) || strings.Contains(text, "Sort") || strings.Contains(text, "Seq Scan on conversation") {
			t.Errorf("view %s does not read %s in order:\n%s", view, index, text)
		}
	}
	// A channel filter is checked on the activity row the walk reads.
	website := "website"
	query, args, err := repo.InboxStatement(s, repo.InboxFilter{View: repo.ViewAll, Channel: &website}, repo.Page{Limit: 25})
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	if err := store.DB.SelectContext(t.Context(), &plan, `EXPLAIN `+query, args...); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "conversation_activity_all") || strings.Contains(text, "Sort") {
		t.Errorf("All on one channel does not read conversation_activity_all in order:\n%s", text)
	}
	rows, err := store.InboxConversations(t.Context(), s, repo.InboxFilter{View: repo.ViewAll}, repo.Page{Limit: 2})
	if err != nil || len(rows) != 3 {
		t.Fatalf("All: %d rows, %v; want 3", len(rows), err)
	}
}

// TestConversationReadPlanBuildsNoHash: a conversation is read with its
// contact by one probe each, also when the statistics are those of the
// empty tables msgsvc migrate analysed (a new installation; autovacuum
// analyses later), where a plain join was planned as a hash join that
// built a hash table of the contacts at every read.
func TestConversationReadPlanBuildsNoHash(t *testing.T) {
	store := repotest.NewStore(t)
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_hash', 'Hash', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO websites (id, workspace_id, name, domains) VALUES ('web_hash', 'ws_hash', 'Hash', '{}')`,
		`ALTER TABLE contacts SET (autovacuum_enabled = false)`,
		`ALTER TABLE conversations SET (autovacuum_enabled = false)`,
		`ANALYZE contacts, conversations`,
		`INSERT INTO contacts (id, workspace_id, livemode, name, created_at, updated_at)
			SELECT 'ct_' || g, 'ws_hash', false, 'Customer ' || g, now(), now() FROM generate_series(1, 3) g`,
		`INSERT INTO conversations (id, workspace_id, livemode, channel, account_id, website_id, contact_id,
			status, mode, created_at, updated_at, last_message_at)
			SELECT 'conv_' || g, 'ws_hash', false, 'website', 'web_hash', 'web_hash', 'ct_' || (g % 3 + 1), 'open', 'human',
				now(), now(), now() FROM generate_series(1, 2000) g`,
	)
	query, args := repo.ConversationStatement(repo.Scope{WorkspaceID: "ws_hash"}, "conv_7")
	if plan := explain(t, store, query, args...); strings.Contains(plan, "Hash") {
		t.Errorf("the read builds a hash table:\n%s", plan)
	}
	c, err := store.Conversation(t.Context(), repo.Scope{WorkspaceID: "ws_hash"}, "conv_7")
	if err != nil || c.ContactName == nil || *c.ContactName != "Customer 2" {
		t.Fatalf("Conversation = %+v, %v; want conv_7 with Customer 2", c, err)
	}
}
