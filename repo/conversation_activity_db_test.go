package repo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// activityColumns are the columns of conversations that a message changes.
var activityColumns = []string{"last_message_at", "updated_at", "last_inbound_at", "message_count"}

// No index of conversations names a column a message changes, in its key,
// an expression or its predicate: otherwise no update a message makes could
// be heap-only (migration 0054).
func TestConversationIndexesLeaveActivityAlone(t *testing.T) {
	store := repotest.NewStore(t)
	var defs []string
	if err := store.DB.SelectContext(t.Context(), &defs, `SELECT pg_get_indexdef(indexrelid) FROM pg_index
		WHERE indrelid = 'conversations'::regclass`); err != nil {
		t.Fatal(err)
	}
	if len(defs) < 5 {
		t.Fatalf("read %d indexes of conversations, want its dozen", len(defs))
	}
	for _, def := range defs {
		for _, col := range activityColumns {
			if strings.Contains(def, col) {
				t.Errorf("%s names %s", def, col)
			}
		}
	}
}

// A reply's update of its conversation is heap-only, and the activity copy
// follows every change in the same statement: on insert, on a message, on
// a change of status, mode or assignee.
func TestConversationActivityFollows(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	repotest.Exec(t, store,
		`INSERT INTO workspaces (id, name, plan, status, messages_limit, rate_per_second, rate_per_minute)
			VALUES ('ws_act', 'Act', 'free', 'active', 10, 10, 100)`,
		`INSERT INTO agents (id, workspace_id, name, email, active) VALUES ('usr_act', 'ws_act', 'A', 'a@act.test', true)`,
		`INSERT INTO websites (id, workspace_id, name, domains) VALUES ('web_act', 'ws_act', 'Act', '{}')`,
	)
	s := repo.Scope{WorkspaceID: "ws_act", Livemode: true}
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	c := &repo.Conversation{ID: "conv_act", WorkspaceID: "ws_act", Livemode: true, Channel: "website",
		AccountID: "web_act", WebsiteID: "web_act", Status: "open", Mode: "ai", CreatedAt: at, UpdatedAt: at, LastMessageAt: at}
	if err := store.InsertConversation(ctx, c); err != nil {
		t.Fatal(err)
	}
	check := func(want repo.Conversation) {
		t.Helper()
		var got struct {
			Status, Mode  string
			Assigned      *string    `db:"assigned_agent_id"`
			LastMessageAt time.Time  `db:"last_message_at"`
			LastInboundAt *time.Time `db:"last_inbound_at"`
			UpdatedAt     time.Time  `db:"updated_at"`
			Channel       string
			WorkspaceID   string `db:"workspace_id"`
			Livemode      bool
		}
		if err := store.DB.GetContext(ctx, &got, `SELECT status, mode, assigned_agent_id, last_message_at,
			last_inbound_at, updated_at, channel, workspace_id, livemode FROM conversation_activity WHERE id = $1`, want.ID); err != nil {
			t.Fatal(err)
		}
		if got.Status != want.Status || got.Mode != want.Mode || !equalPtr(got.Assigned, want.AssignedAgentID) ||
			!got.LastMessageAt.Equal(want.LastMessageAt) || !got.UpdatedAt.Equal(want.UpdatedAt) ||
			(got.LastInboundAt == nil) != (want.LastInboundAt == nil) ||
			(got.LastInboundAt != nil && !got.LastInboundAt.Equal(*want.LastInboundAt)) ||
			got.Channel != want.Channel || got.WorkspaceID != want.WorkspaceID || got.Livemode != want.Livemode {
			t.Fatalf("activity %+v, conversation %+v", got, want)
		}
	}
	check(*c)

	// A customer message, then a reply: heap-only updates.
	err := store.InTx(ctx, func(q repo.Queries) error {
		conv, err := q.LockConversation(ctx, s, c.ID)
		if err != nil {
			return err
		}
		for i := 1; i <= 2; i++ {
			conv.MessageCount++
			conv.LastMessageAt = at.Add(time.Duration(i) * time.Minute)
			conv.UpdatedAt = conv.LastMessageAt
			if i == 1 {
				in := conv.LastMessageAt
				conv.LastInboundAt = &in
			}
			if err := q.UpdateConversation(ctx, s, conv); err != nil {
				return err
			}
			// Each update flushed before the next (a held write is sent
			// before the same statement is held again).
		}
		upd, hot, err := q.XactUpdates(ctx, "conversations")
		if err != nil {
			return err
		}
		if upd != 2 || hot != 2 {
			t.Errorf("conversations: %d updates, %d heap-only; want 2 and 2", upd, hot)
		}
		c = conv
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check(*c)

	// A member takes it over, then closes it.
	agent := "usr_act"
	for _, change := range []func(){
		func() { c.Mode, c.AssignedAgentID = "human", &agent },
		func() { c.Status = "closed" },
	} {
		change()
		c.UpdatedAt = c.UpdatedAt.Add(time.Minute)
		if err := store.InTx(ctx, func(q repo.Queries) error { return q.UpdateConversation(ctx, s, c) }); err != nil {
			t.Fatal(err)
		}
		check(*c)
	}

	// Deleting the conversation deletes its copy.
	if _, err := store.DB.ExecContext(ctx, `DELETE FROM conversations WHERE id = $1`, c.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := store.DB.GetContext(ctx, &left, `SELECT count(*) FROM conversation_activity WHERE id = $1`, c.ID); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d activity rows left after the conversation went", left)
	}
}

func equalPtr(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
