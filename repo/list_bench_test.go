package repo_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// BenchmarkConversationList measures GET /v1/conversations' query at 10k and
// 1M conversations of one workspace (BENCH_LIST_ROWS overrides the sizes,
// e.g. "10000"), inserted directly in SQL: the first page and a page 90%
// deep, with each filter. Lists stay flat when every filter has an index
// that serves the newest-first order (docs/performance.md).
func BenchmarkConversationList(b *testing.B) {
	sizes := []int{10_000, 1_000_000}
	if v := os.Getenv("BENCH_LIST_ROWS"); v != "" {
		sizes = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(s)
			if err != nil {
				b.Fatalf("BENCH_LIST_ROWS: %q", s)
			}
			sizes = append(sizes, n)
		}
	}
	open, web := "open", "web_b"
	channel := "email"
	for _, n := range sizes {
		store := repotest.NewStore(b)
		now := fillConversations(b, store, n)
		recent := now.Add(-time.Hour)
		filters := []struct {
			name string
			f    repo.ConversationFilter
		}{
			{"none", repo.ConversationFilter{}},
			{"channel", repo.ConversationFilter{Channel: &channel}},
			{"status", repo.ConversationFilter{Status: &open}},
			{"website", repo.ConversationFilter{WebsiteID: &web}},
			{"updated_since", repo.ConversationFilter{UpdatedSince: &recent}},
			{"channel+status", repo.ConversationFilter{Channel: &channel, Status: &open}},
		}
		scope := repo.Scope{WorkspaceID: "ws_bench", Livemode: true}
		for _, f := range filters {
			deep := deepPosition(b, store, scope, f.f)
			for _, page := range []struct {
				name  string
				after *repo.Position
			}{{"first", nil}, {"deep", deep}} {
				b.Run(fmt.Sprintf("rows=%d/%s/%s", n, f.name, page.name), func(b *testing.B) {
					for range b.N {
						if _, err := store.Conversations(context.Background(), scope, f.f, repo.Page{Limit: 20, After: page.after}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// deepPosition walks the filtered list to its end and returns the cursor
// position 90% of the way down.
func deepPosition(b *testing.B, store *repo.Store, scope repo.Scope, f repo.ConversationFilter) *repo.Position {
	b.Helper()
	var marks []repo.Position
	var after *repo.Position
	for {
		page, err := store.Conversations(context.Background(), scope, f, repo.Page{Limit: 1000, After: after})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(page) && i < 1000; i += 50 {
			marks = append(marks, repo.Position{At: page[i].CreatedAt, ID: page[i].ID})
		}
		if len(page) <= 1000 {
			break
		}
		last := page[999]
		after = &repo.Position{At: last.CreatedAt, ID: last.ID}
	}
	if len(marks) == 0 {
		return nil
	}
	return &marks[len(marks)*9/10]
}

// fillConversations inserts n conversations, one a second back from now,
// skewed as a real inbox is, so that a filter can match few rows: 1% email
// (the rest WhatsApp, Instagram and website in turn), 5% open, 1% on the
// second website, the last message within an hour of creation.
func fillConversations(b *testing.B, store *repo.Store, n int) time.Time {
	b.Helper()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
		 VALUES ('ws_bench', 'bench', 'pro', 'active', 1000, 20, 300)`,
		`INSERT INTO websites (id, workspace_id, name) VALUES ('web_a', 'ws_bench', 'a'), ('web_b', 'ws_bench', 'b')`,
		`INSERT INTO conversations (id, workspace_id, livemode, channel, account_id, website_id, status, mode,
		   created_at, updated_at, last_message_at)
		 SELECT 'conv_' || lpad(i::text, 8, '0'), 'ws_bench', true,
		   CASE WHEN i % 100 = 0 THEN 'email' ELSE (ARRAY['website','whatsapp','instagram'])[1 + i % 3] END, 'acct',
		   CASE WHEN i % 100 = 1 THEN 'web_b' ELSE 'web_a' END, CASE WHEN i % 20 = 0 THEN 'open' ELSE 'closed' END, 'external',
		   $1::timestamptz - i * interval '1 second', $1::timestamptz - i * interval '1 second',
		   $1::timestamptz - i * interval '1 second' + least(i - 1, (i::bigint * 7919) % 3600) * interval '1 second'
		 FROM generate_series(1, $2) AS i`,
		`ANALYZE conversations`,
	} {
		if _, err := store.DB.Exec(q, argsOf(q, now, n)...); err != nil {
			b.Fatalf("%s: %v", q[:40], err)
		}
	}
	return now
}

func argsOf(q string, now time.Time, n int) []any {
	if strings.Contains(q, "$2") {
		return []any{now, n}
	}
	return nil
}
