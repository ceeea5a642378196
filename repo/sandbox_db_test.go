package repo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// dueIDs runs LockDueSandboxMessages in q and returns the ids it locked,
// checking each comes with its own conversation.
func dueIDs(t *testing.T, q repo.Queries, ctx context.Context, by time.Time, limit int) []string {
	t.Helper()
	due, err := q.LockDueSandboxMessages(ctx, by, limit)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range due {
		if d.Conversation.ID != d.ConversationID || d.Conversation.WorkspaceID != d.WorkspaceID {
			t.Errorf("%s of %s came with conversation %s of %s", d.ID, d.ConversationID, d.Conversation.ID, d.Conversation.WorkspaceID)
		}
		ids = append(ids, d.ID)
	}
	return ids
}

// TestLockDueSandboxMessages: the sandbox's outbound messages still sent at
// or before the time, oldest first (then by id), up to the limit; not a
// message sent later, settled, inbound or live.
func TestLockDueSandboxMessages(t *testing.T) {
	store := sendFixture(t)
	by := sentAt.Add(time.Second)
	storeSent(t, store, "msg_b", "conv_wa", false, sentAt, nil)
	storeSent(t, store, "msg_a", "conv_web", false, sentAt, nil)
	storeSent(t, store, "msg_c", "conv_nocontact", false, by, nil) // exactly due
	storeSent(t, store, "msg_late", "conv_wa", false, by.Add(time.Millisecond), nil)
	storeSent(t, store, "msg_settled", "conv_wa", false, sentAt, func(m *repo.Message) { m.Status = "delivered" })
	storeSent(t, store, "msg_inbound", "conv_wa", false, sentAt, func(m *repo.Message) { m.Direction = "inbound" })
	storeSent(t, store, "msg_live", "conv_live", true, sentAt, nil)
	inTx(t, store, func(q repo.Queries) error {
		if got := strings.Join(dueIDs(t, q, t.Context(), by, 10), " "); got != "msg_a msg_b msg_c" {
			t.Errorf("due: %s, want msg_a msg_b msg_c", got)
		}
		return nil
	})
	inTx(t, store, func(q repo.Queries) error {
		if got := strings.Join(dueIDs(t, q, t.Context(), by, 2), " "); got != "msg_a msg_b" {
			t.Errorf("due, at most 2: %s, want msg_a msg_b", got)
		}
		return nil
	})
}

// TestLockDueSandboxMessagesSkipsLockedRows: rows another transaction holds
// are skipped at once, not waited for: a message held, and every message of
// a conversation held (a send in it), which is then not locked either. The
// rows taken stay locked until the transaction ends.
func TestLockDueSandboxMessagesSkipsLockedRows(t *testing.T) {
	store := sendFixture(t)
	storeSent(t, store, "msg_held", "conv_wa", false, sentAt, nil)
	storeSent(t, store, "msg_web", "conv_web", false, sentAt.Add(time.Millisecond), nil)
	storeSent(t, store, "msg_free", "conv_wa", false, sentAt.Add(2*time.Millisecond), nil)
	holder, err := store.DB.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // released at the end of the test
	for _, lock := range []string{`SELECT 1 FROM messages WHERE id = 'msg_held' FOR UPDATE`,
		`SELECT 1 FROM conversations WHERE id = 'conv_web' FOR UPDATE`} {
		if _, err := holder.Exec(lock); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a wait would end here
	defer cancel()
	inTx(t, store, func(q repo.Queries) error {
		if got := strings.Join(dueIDs(t, q, ctx, sentAt.Add(time.Second), 10), " "); got != "msg_free" {
			t.Errorf("due with msg_held and conv_web held elsewhere: %s, want msg_free", got)
		}
		for query, locked := range map[string]bool{
			`SELECT 1 FROM messages WHERE id = 'msg_free' FOR UPDATE NOWAIT`:     true,
			`SELECT 1 FROM conversations WHERE id = 'conv_wa' FOR UPDATE NOWAIT`: true,
			`SELECT 1 FROM messages WHERE id = 'msg_web' FOR UPDATE NOWAIT`:      false,
		} {
			if got := lockedElsewhere(t, store, query); got != locked {
				t.Errorf("%s: locked %v, want %v", query, got, locked)
			}
		}
		return nil
	})
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	inTx(t, store, func(q repo.Queries) error {
		if got := strings.Join(dueIDs(t, q, ctx, sentAt.Add(time.Second), 10), " "); got != "msg_held msg_web msg_free" {
			t.Errorf("due once released: %s, want msg_held msg_web msg_free", got)
		}
		return nil
	})
}

// TestDueSandboxMessagesUseTheIndex: among many settled sandbox messages
// and live ones still sent, the pass reads the waiting messages from
// messages_sandbox_due in its order, so it stops at the batch (no sort, no
// other scan of messages), and each conversation by its key
// (the history of docs/performance.md, shows the plan).
func TestDueSandboxMessagesUseTheIndex(t *testing.T) {
	store := sendFixture(t)
	for _, q := range []string{
		`INSERT INTO messages (id, workspace_id, livemode, conversation_id, channel, direction, sender_type, text, status, created_at)
			SELECT 'msg_old_' || i, 'ws_1', i % 2 = 0, CASE WHEN i % 2 = 0 THEN 'conv_live' ELSE 'conv_wa' END, 'whatsapp',
			'outbound', 'api', 'hello', CASE WHEN i % 2 = 0 THEN 'sent' ELSE 'delivered' END,
			timestamptz '2026-01-01' + i * interval '1 second' FROM generate_series(1, 20000) i`,
		`INSERT INTO messages (id, workspace_id, livemode, conversation_id, channel, direction, sender_type, text, status, created_at)
			SELECT 'msg_due_' || i, 'ws_1', false, 'conv_web', 'website', 'outbound', 'api', 'hello', 'sent',
			timestamptz '2026-03-01' + i * interval '1 second' FROM generate_series(1, 20) i`,
		`ANALYZE messages`,
	} {
		if _, err := store.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// The plan of the statement's first runs, and the generic plan a
	// prepared statement may keep after them.
	tx, err := store.DB.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing is written
	var custom, generic []byte
	if err := tx.Get(&custom, `EXPLAIN (FORMAT JSON) `+repo.DueSandboxMessagesQuery, sentAt, 200); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PREPARE due AS ` + repo.DueSandboxMessagesQuery, `SET LOCAL plan_cache_mode = force_generic_plan`} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Get(&generic, `EXPLAIN (FORMAT JSON) EXECUTE due('2026-03-04T05:06:07Z', 200)`); err != nil {
		t.Fatal(err)
	}
	checkDuePlan(t, "custom", custom)
	checkDuePlan(t, "generic", generic)
}

// checkDuePlan fails the test unless a plan reads messages only by an index
// scan of messages_sandbox_due, and sorts nothing.
func checkDuePlan(t *testing.T, name string, raw []byte) {
	t.Helper()
	var plan []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		t.Fatalf("%s plan %s: %v", name, raw, err)
	}
	var nodes []planNode
	plan[0].Plan.walk(func(n planNode) { nodes = append(nodes, n) })
	usesIndex := false
	for _, n := range nodes {
		switch {
		case n.Relation == "messages" && n.Index == "messages_sandbox_due" && n.Type == "Index Scan":
			usesIndex = true
		case n.Relation == "messages", n.Type == "Sort", n.Type == "Incremental Sort":
			t.Errorf("%s plan has %s on %q (index %q):\n%s", name, n.Type, n.Relation, n.Index, raw)
		}
	}
	if !usesIndex {
		t.Errorf("the %s plan does not read messages_sandbox_due:\n%s", name, raw)
	}
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// TestInsertEvents: one statement records the events in the order given
// (their seqs follow it), each as InsertEvent would, NULLs included.
func TestInsertEvents(t *testing.T) {
	store := sendFixture(t)
	str := func(s string) *string { return &s }
	at := time.Date(2026, 3, 4, 5, 6, 7, 123000000, time.UTC)
	events := []*repo.Event{
		{ID: "evt_3", WorkspaceID: "ws_1", Type: "message.status", Channel: str("whatsapp"), WebsiteID: str("web_1"),
			ConversationID: str("conv_wa"), Envelope: repo.JSONB(`{"id": "evt_3", "data": {"text": "a \"quoted\" {brace}, \\"}}`), CreatedAt: at},
		{ID: "evt_1", WorkspaceID: "ws_2", Livemode: true, Type: "contact.created", Envelope: repo.JSONB(`{"id": "evt_1"}`),
			CreatedAt: at.Add(time.Millisecond)},
		{ID: "evt_2", WorkspaceID: "ws_1", Type: "message.status", Channel: str("website"), WebsiteID: str(""),
			ConversationID: str("conv_web"), Envelope: repo.JSONB(`{"id": "evt_2", "null": null}`), CreatedAt: at},
	}
	before := store.Statements()
	inTx(t, store, func(q repo.Queries) error { return q.InsertEvents(t.Context(), events) })
	if used := store.Statements() - before; used != 1 {
		t.Errorf("%d statements, want 1", used)
	}
	var got []repo.Event
	if err := store.DB.Select(&got, `SELECT seq, id, workspace_id, livemode, type, channel, website_id, conversation_id,
		envelope, created_at FROM events ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(events) {
		t.Fatalf("%d events stored, want %d", len(got), len(events))
	}
	for i, w := range events {
		g := got[i]
		g.Seq, g.CreatedAt = 0, g.CreatedAt.UTC()
		var gotEnv, wantEnv any
		_ = json.Unmarshal(g.Envelope, &gotEnv)
		if err := json.Unmarshal(w.Envelope, &wantEnv); err != nil {
			t.Fatal(err)
		}
		want := *w
		g.Envelope, want.Envelope = nil, nil
		if !sameEvent(g, want) || !jsonEqual(gotEnv, wantEnv) {
			t.Errorf("event %d:\n%+v %s\nwant\n%+v %s", i, g, got[i].Envelope, want, w.Envelope)
		}
	}
}

func sameEvent(a, b repo.Event) bool {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return "=" + *p
	}
	return a.ID == b.ID && a.WorkspaceID == b.WorkspaceID && a.Livemode == b.Livemode && a.Type == b.Type &&
		s(a.Channel) == s(b.Channel) && s(a.WebsiteID) == s(b.WebsiteID) && s(a.ConversationID) == s(b.ConversationID) &&
		a.CreatedAt.Equal(b.CreatedAt)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
