package repo_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// storeMessage stores an outbound sent message in a conversation of
// sendFixture.
func storeMessage(t *testing.T, store *repo.Store, id, convID string, live bool) {
	t.Helper()
	text := "hello"
	m := &repo.Message{ID: id, WorkspaceID: "ws_1", Livemode: live, ConversationID: convID, Channel: "whatsapp",
		Direction: "outbound", SenderType: "api", Type: "text", Text: &text, Attachments: repo.JSONB(`[]`),
		Status: "sent", Delivery: repo.JSONB(`{"sent_at": "2026-03-04T05:06:07.000Z"}`),
		CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
	if err := store.UpsertMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestLockMessageInConversation: the one statement answers what
// LockMessage and then LockConversation did, and neither finds a message
// outside the scope's workspace and mode.
func TestLockMessageInConversation(t *testing.T) {
	store := sendFixture(t)
	storeMessage(t, store, "msg_1", "conv_nocontact", false)
	storeMessage(t, store, "msg_live", "conv_live", true)
	sandbox := repo.Scope{WorkspaceID: "ws_1"}
	for _, tc := range []struct {
		name  string
		scope repo.Scope
		id    string
		found bool
	}{
		{"in the scope", sandbox, "msg_1", true},
		{"live", repo.Scope{WorkspaceID: "ws_1", Livemode: true}, "msg_live", true},
		{"the other mode", sandbox, "msg_live", false},
		{"another workspace", repo.Scope{WorkspaceID: "ws_2"}, "msg_1", false},
		{"no such message", sandbox, "msg_none", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inTx(t, store, func(q repo.Queries) error {
				m, conv, err := q.LockMessageInConversation(t.Context(), tc.scope, tc.id)
				if err != nil || !tc.found {
					return wantFound(t, err, tc.found)
				}
				wantM, err := q.LockMessage(t.Context(), tc.scope.WorkspaceID, tc.scope.Livemode, tc.id)
				if err != nil {
					return err
				}
				wantConv, err := q.LockConversation(t.Context(), tc.scope, wantM.ConversationID)
				if err != nil {
					return err
				}
				sameRow(t, "message", m, wantM)
				sameRow(t, "conversation", conv, wantConv)
				return nil
			})
		})
	}
}

// TestLockMessageInConversationLockOrder: the statement locks the message
// and then the conversation, the order LockMessage and LockConversation
// took, so merging them changes no writer's lock order: while another
// transaction holds the conversation, the statement waits for it holding
// the message already.
func TestLockMessageInConversationLockOrder(t *testing.T) {
	store := sendFixture(t)
	storeMessage(t, store, "msg_1", "conv_nocontact", false)
	holder, err := store.DB.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // released below
	if _, err := holder.Exec(`SELECT 1 FROM conversations WHERE id = 'conv_nocontact' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- store.InTx(t.Context(), func(q repo.Queries) error {
			_, _, err := q.LockMessageInConversation(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "msg_1")
			return err
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for waiting := 0; waiting == 0; time.Sleep(10 * time.Millisecond) {
		if err := store.DB.Get(&waiting, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE 'SELECT m.id, %'`); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the statement never waited for the conversation")
		}
	}
	if !lockedElsewhere(t, store, `SELECT 1 FROM messages WHERE id = 'msg_1' FOR UPDATE NOWAIT`) {
		t.Error("waiting for the conversation, the statement did not hold the message yet")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
