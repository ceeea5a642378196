package repo_test

import (
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// TestLockConversationThenMessage: the two statements answer what
// LockConversation and LockMessage answer, and find nothing outside the
// scope: another workspace or mode, or a conversation on a channel or
// website the key may not see.
func TestLockConversationThenMessage(t *testing.T) {
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
		{"a key of the channel", repo.Scope{WorkspaceID: "ws_1", Channels: []string{"whatsapp"}}, "msg_1", true},
		{"a key of another channel", repo.Scope{WorkspaceID: "ws_1", Channels: []string{"email"}}, "msg_1", false},
		{"a key of another website", repo.Scope{WorkspaceID: "ws_1", WebsiteIDs: []string{"web_2"}}, "msg_1", false},
		{"the other mode", sandbox, "msg_live", false},
		{"another workspace", repo.Scope{WorkspaceID: "ws_2"}, "msg_1", false},
		{"no such message", sandbox, "msg_none", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inTx(t, store, func(q repo.Queries) error {
				conv, m, err := q.LockConversationThenMessage(t.Context(), tc.scope, tc.id)
				if err != nil || !tc.found {
					return wantFound(t, err, tc.found)
				}
				wantConv, err := q.LockConversation(t.Context(), tc.scope, m.ConversationID)
				if err != nil {
					return err
				}
				wantM, err := q.LockMessage(t.Context(), tc.scope.WorkspaceID, tc.scope.Livemode, tc.id)
				if err != nil {
					return err
				}
				sameRow(t, "conversation", conv, wantConv)
				sameRow(t, "message", m, wantM)
				return nil
			})
		})
	}
}

// TestLockConversationThenMessageLockOrder: while another transaction
// holds the conversation, the statements wait for it without holding the
// message, and then hold both.
func TestLockConversationThenMessageLockOrder(t *testing.T) {
	store := sendFixture(t)
	storeMessage(t, store, "msg_1", "conv_nocontact", false)
	err := repotest.ConversationFirst(t, store, "conv_nocontact", "msg_1", func() error {
		return store.InTx(t.Context(), func(q repo.Queries) error {
			if _, _, err := q.LockConversationThenMessage(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "msg_1"); err != nil {
				return err
			}
			for _, query := range []string{
				`SELECT 1 FROM conversations WHERE id = 'conv_nocontact' FOR UPDATE NOWAIT`,
				`SELECT 1 FROM messages WHERE id = 'msg_1' FOR UPDATE NOWAIT`,
			} {
				if !repotest.Locked(t, store, query) {
					t.Errorf("%s: not locked", query)
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLockConversationThenMessageRechecks: a message that left the
// conversation while the statements waited for it is not found, and the
// conversation it is in now is not locked.
func TestLockConversationThenMessageRechecks(t *testing.T) {
	store := sendFixture(t)
	storeMessage(t, store, "msg_1", "conv_nocontact", false)
	err := repotest.WhileWaiting(t, store, "conv_nocontact", func() error {
		return store.InTx(t.Context(), func(q repo.Queries) error {
			_, _, err := q.LockConversationThenMessage(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "msg_1")
			if repotest.Locked(t, store, `SELECT 1 FROM conversations WHERE id = 'conv_wa' FOR UPDATE NOWAIT`) {
				t.Error("the conversation the message moved to is locked")
			}
			return err
		})
	}, func() {
		if _, err := store.DB.Exec(`UPDATE messages SET conversation_id = 'conv_wa' WHERE id = 'msg_1'`); err != nil {
			t.Fatal(err)
		}
	})
	if !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("err %v, want ErrNotFound", err)
	}
}
