package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// seedInbox adds n conversations to ws_main's test data in bulk SQL: one
// in five open (a quarter each waiting, Alice's, the AI's, an
// integration's), the rest closed, every other one with an unread customer
// message, one in fifty tagged vip; and one conversation of msgs
// messages. It returns that conversation's id.
func seedInbox(b *testing.B, api *resttest.API, n, msgs int) string {
	b.Helper()
	start := time.Now()
	now := resttest.Epoch
	for _, q := range []string{
		`INSERT INTO conversations (id, workspace_id, livemode, channel, account_id, website_id, status, mode,
		   assigned_agent_id, tags, created_at, updated_at, last_message_at, last_inbound_at)
		 SELECT 'conv_b' || lpad(i::text, 7, '0'), 'ws_main', false,
		   (ARRAY['website','whatsapp','instagram','email'])[1 + i % 4], 'acct', 'web_main',
		   CASE WHEN i % 5 = 0 THEN 'open' ELSE 'closed' END,
		   CASE WHEN i % 5 <> 0 THEN 'ai' ELSE (ARRAY['queued_for_human','human','ai','external'])[1 + (i / 5) % 4] END,
		   CASE WHEN i % 5 = 0 AND (i / 5) % 4 = 1 THEN 'usr_alice' END,
		   CASE WHEN i % 50 = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END,
		   $1::timestamptz - i * interval '1 second', $1::timestamptz - i * interval '1 second',
		   $1::timestamptz - i * interval '1 second',
		   CASE WHEN i % 2 = 0 THEN $1::timestamptz - i * interval '1 second' END
		 FROM generate_series(1, $2) AS i`,
		`INSERT INTO messages (id, workspace_id, livemode, conversation_id, channel, direction, sender_type, text, status, created_at)
		 SELECT 'msg_b' || lpad(i::text, 7, '0'), 'ws_main', false, 'conv_b0000005', 'website',
		   CASE WHEN i % 2 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN i % 2 = 0 THEN 'visitor' ELSE 'agent' END,
		   'message ' || i, CASE WHEN i % 2 = 0 THEN 'received' ELSE 'delivered' END,
		   $1::timestamptz - interval '1 day' + i * interval '1 second'
		 FROM generate_series(1, $2) AS i`,
		`ANALYZE conversations`,
		`ANALYZE conversation_activity`,
		`ANALYZE messages`,
	} {
		var args []any
		switch {
		case strings.HasPrefix(q, "INSERT INTO conversations"):
			args = []any{now, n}
		case strings.HasPrefix(q, "INSERT INTO messages"):
			args = []any{now, msgs}
		}
		if _, err := api.Store.DB.Exec(q, args...); err != nil {
			b.Fatalf("%.60s: %v", q, err)
		}
	}
	b.Logf("seeded %d conversations and %d messages in %v", n, msgs, time.Since(start))
	return "conv_b0000005"
}

// timeGraphQL posts a query as the admin token of ws_main's test data and
// returns how long the answer took and its data.
func timeGraphQL(b *testing.B, api *resttest.API, query string) (time.Duration, map[string]any) {
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest("POST", api.HTTP.URL+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Msgsvc-Workspace", "ws_main")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
		b.Fatalf("%s: %v %v", query, err, out.Errors)
	}
	return time.Since(start), out.Data
}

// reportQuantiles reports the p50 and p99 of durations in milliseconds.
func reportQuantiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	q := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

const inboxPageQuery = `{ inbox(view: %s, limit: 25, memberId: "usr_alice"%s) { items { unread queuedAt
	conversation { id channel status mode subject assignedAgentId tags lastMessageAt contact { name email phone } } }
	hasMore nextCursor } }`

// BenchmarkInboxAt100k: the inbox over GraphQL (POST /graphql on loopback,
// the whole request) in a workspace of 100,000 conversations: each view's
// first page and its 20th page (a cursor 500 rows deep), a tag filter,
// inboxCounts, and the pages of a 5,000-message conversation. Goal: list
// p99 < 50 ms. Reported as p50/p99 per sub-benchmark; run with
// -benchtime 200x or so.
func BenchmarkInboxAt100k(b *testing.B) {
	quiet(b)
	api := resttest.New(b)
	long := seedInbox(b, api, 100_000, 5_000)
	for _, view := range []string{"WAITING", "MINE", "AI", "EXTERNAL", "CLOSED", "ALL"} {
		deep := ""
		for range 20 {
			_, data := timeGraphQL(b, api, fmt.Sprintf(inboxPageQuery, view, deep))
			page := data["inbox"].(map[string]any)
			if page["nextCursor"] == nil {
				break
			}
			deep = fmt.Sprintf(`, after: %q`, page["nextCursor"])
		}
		for _, p := range []struct{ name, args string }{{"first", ""}, {"page20", deep}} {
			b.Run(view+"/"+p.name, func(b *testing.B) {
				d := make([]time.Duration, 0, b.N)
				for range b.N {
					took, _ := timeGraphQL(b, api, fmt.Sprintf(inboxPageQuery, view, p.args))
					d = append(d, took)
				}
				reportQuantiles(b, d)
			})
		}
	}
	b.Run("ALL/tag", func(b *testing.B) {
		d := make([]time.Duration, 0, b.N)
		for range b.N {
			took, _ := timeGraphQL(b, api, fmt.Sprintf(inboxPageQuery, "ALL", `, tag: "vip", channel: "website"`))
			d = append(d, took)
		}
		reportQuantiles(b, d)
	})
	b.Run("inboxCounts", func(b *testing.B) {
		d := make([]time.Duration, 0, b.N)
		for range b.N {
			took, _ := timeGraphQL(b, api, `{ inboxCounts(memberId: "usr_alice") { waiting mine ai external all } }`)
			d = append(d, took)
		}
		reportQuantiles(b, d)
	})
	b.Run("messages-5000", func(b *testing.B) {
		var d []time.Duration
		for range b.N {
			after := ""
			for {
				took, data := timeGraphQL(b, api, `{ messages(conversationId: "`+long+`", limit: 100`+after+`) {
					items { id direction text status createdAt sender { type name } } nextCursor } }`)
				d = append(d, took)
				next := data["messages"].(map[string]any)["nextCursor"]
				if next == nil {
					break
				}
				after = fmt.Sprintf(`, after: %q`, next)
			}
		}
		reportQuantiles(b, d)
	})
}

// quiet drops the request log for a benchmark.
func quiet(b *testing.B) {
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.Cleanup(func() { slog.SetDefault(logger) })
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleInboxSubscriptions: the CPU 200 open inbox connections cost
// while nothing happens, each subscribed as the app does
// (conversationEvents, conversationNotes, conversationPresence), measured
// over 15 s (a graphql-ws keep-alive included) as the share of one core
// the whole test process used (server and clients; Postgres apart).
// Goal: < 5 %.
func BenchmarkIdleInboxSubscriptions(b *testing.B) {
	quiet(b)
	api := resttest.New(b)
	const conns = 200
	for i := range conns {
		c, ack := dialGraphQL(b, api, map[string]any{"Authorization": "Bearer admin-token", "Msgsvc-Workspace": "ws_main"})
		if ack.Type != "connection_ack" {
			b.Fatalf("connection %d: %+v", i, ack)
		}
		for n, q := range []string{`subscription { conversationEvents { type } }`, `subscription { conversationNotes { id } }`,
			`subscription { conversationPresence(conversationId: "conv_wa_1h") { typing } }`} {
			sub, _ := json.Marshal(map[string]any{"query": q})
			if err := wsjson.Write(context.Background(), c, wsMessage{ID: fmt.Sprint(n), Type: "subscribe", Payload: sub}); err != nil {
				b.Fatal(err)
			}
		}
		go func() { // answer pings, drop anything else
			for {
				var m wsMessage
				if err := wsjson.Read(context.Background(), c, &m); err != nil {
					return
				}
				if m.Type == "ping" {
					_ = wsjson.Write(context.Background(), c, wsMessage{Type: "pong"})
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // let the subscriptions settle
	for range b.N {
		const idle = 15 * time.Second
		before, start := cpuTime(b), time.Now()
		time.Sleep(idle)
		share := float64(cpuTime(b)-before) / float64(time.Since(start))
		b.ReportMetric(share*100, "%core")
		b.ReportMetric(0, "ns/op")
	}
}
