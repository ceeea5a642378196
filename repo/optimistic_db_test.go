package repo_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// optimisticReply writes what a sandbox reply writes into conv_nocontact
// of sendFixture, read as a send reads it; between its read and its writes
// it runs meanwhile, when set.
func optimisticReply(t *testing.T, q repo.Queries, msgID string, meanwhile func()) error {
	t.Helper()
	c, _, _, err := q.LockConversationForSend(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "conv_nocontact")
	if err != nil {
		return err
	}
	if meanwhile != nil {
		meanwhile()
	}
	return writeReply(t, q, c, msgID, "evt_"+msgID, "optimistic")
}

// TestOptimisticReplyIsTwoStatements: a reply run optimistically is its
// read and its writes, two statements and no transaction, and stores all
// it wrote.
func TestOptimisticReplyIsTwoStatements(t *testing.T) {
	store := sendFixture(t)
	before, runs := store.Statements(), 0
	err := store.InTxOptimistic(t.Context(), t.Name(), func(q repo.Queries) error {
		runs++
		if !q.Optimistic() {
			t.Error("the first run is not optimistic")
		}
		return optimisticReply(t, q, "msg_opt", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if used := store.Statements() - before; used != 2 || runs != 1 {
		t.Errorf("%d statements in %d runs, want 2 in 1: the read, and the writes together", used, runs)
	}
	if n := count(t, store, `SELECT message_count FROM conversations WHERE id = 'conv_nocontact'`); n != 2 {
		t.Errorf("message_count %d, want 2", n)
	}
	if n := replyStored(t, store, "msg_opt", "evt_msg_opt"); n != 2 {
		t.Errorf("%d of the message and the event stored, want 2", n)
	}
}

// TestOptimisticReplyAfterAChangeRunsAgainLocked: when the conversation
// changes between the read and the writes, the writes' statement keeps
// nothing, and the reply runs again in a transaction over the changed row:
// the change stays, the count is right, the first run's message is gone.
func TestOptimisticReplyAfterAChangeRunsAgainLocked(t *testing.T) {
	store := sendFixture(t)
	runs := 0
	err := store.InTxOptimistic(t.Context(), t.Name(), func(q repo.Queries) error {
		runs++
		if runs == 1 {
			return optimisticReply(t, q, "msg_first", func() {
				if _, err := store.DB.ExecContext(t.Context(), `UPDATE conversations SET tags = '{changed}',
					message_count = message_count + 1 WHERE id = 'conv_nocontact'`); err != nil {
					t.Fatal(err)
				}
			})
		}
		if q.Optimistic() {
			t.Error("the second run is optimistic again, want a transaction")
		}
		return optimisticReply(t, q, "msg_second", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Fatalf("%d runs, want 2", runs)
	}
	if n := replyStored(t, store, "msg_first", "evt_msg_first"); n != 0 {
		t.Errorf("%d rows of the given-up run stored, want 0", n)
	}
	if n := count(t, store, `SELECT message_count FROM conversations WHERE id = 'conv_nocontact'
		AND tags = '{changed}'`); n != 3 {
		t.Errorf("message_count %d with the change kept, want 3", n)
	}
	if n := count(t, store, `SELECT count(*) FROM messages WHERE id = 'msg_second'`); n != 1 {
		t.Errorf("%d of the second run's message, want 1", n)
	}
	// The conversation met a change: its next replies take the lock first.
	var optimistic []bool
	for range 2 {
		if err := store.InTxOptimistic(t.Context(), t.Name(), func(q repo.Queries) error {
			optimistic = append(optimistic, q.Optimistic())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if optimistic[0] || optimistic[1] {
		t.Errorf("runs after the change optimistic %v, want [false false]", optimistic)
	}
}

// TestOptimisticRunGivesUpForWhatNeedsATransaction: a read that locks, a
// write that runs at once, a read after held writes and an update not read
// at a version each end the optimistic run, even when the function drops
// the error, before anything was written; the function then runs in a
// transaction.
func TestOptimisticRunGivesUpForWhatNeedsATransaction(t *testing.T) {
	s := repo.Scope{WorkspaceID: "ws_1"}
	cases := map[string]func(t *testing.T, q repo.Queries) error{
		"locking read": func(t *testing.T, q repo.Queries) error {
			_, err := q.LockConversation(t.Context(), s, "conv_nocontact")
			return err
		},
		"write at once": func(t *testing.T, q repo.Queries) error {
			return q.SetBatchRefused(t.Context(), "ws_1", "batch_none", 1)
		},
		"read after a held write": func(t *testing.T, q repo.Queries) error {
			if err := q.InsertEvent(t.Context(), &repo.Event{ID: "evt_held", WorkspaceID: "ws_1",
				Type: "message.sent", Envelope: repo.JSONB(`{}`), CreatedAt: time.Now()}); err != nil {
				return err
			}
			_, err := q.Conversation(t.Context(), s, "conv_nocontact")
			return err
		},
		"update not read at a version": func(t *testing.T, q repo.Queries) error {
			c := &repo.Conversation{ID: "conv_nocontact", Status: "open", Mode: "human", MessageCount: 7}
			return q.UpdateConversation(t.Context(), s, c)
		},
	}
	for name, step := range cases {
		t.Run(name, func(t *testing.T) {
			store := sendFixture(t)
			var modes []bool
			err := store.InTxOptimistic(t.Context(), t.Name(), func(q repo.Queries) error {
				modes = append(modes, q.Optimistic())
				if err := step(t, q); err != nil && !q.Optimistic() {
					return err
				}
				return nil // the error of the optimistic run dropped
			})
			if err != nil && name != "update not read at a version" {
				t.Fatal(err)
			}
			if len(modes) != 2 || !modes[0] || modes[1] {
				t.Errorf("runs optimistic %v, want [true false]", modes)
			}
			if n := count(t, store, `SELECT count(*) FROM events WHERE id = 'evt_held'`); n != 1 && name == "read after a held write" {
				t.Errorf("%d of the held event, want 1 (from the transaction only)", n)
			}
		})
	}
}

// TestOptimisticReplyBindsItsKey: a reply's Idempotency-Key is bound with
// its writes, in the same statement; when a retry took the key over between
// the read and the writes, the writes keep nothing and the transaction's
// run answers that the request no longer owns the key.
func TestOptimisticReplyBindsItsKey(t *testing.T) {
	for _, takenOver := range []bool{false, true} {
		t.Run(map[bool]string{false: "owned", true: "taken over"}[takenOver], func(t *testing.T) {
			store := sendFixture(t)
			ctx := t.Context()
			if ok, err := store.ClaimIdempotencyKey(ctx, &repo.IdempotencyRecord{APIKeyID: "key_1", Key: "k",
				WorkspaceID: "ws_1", RequestHash: "h", RequestID: "req_1", CreatedAt: time.Now()}); err != nil || !ok {
				t.Fatal(ok, err)
			}
			before := store.Statements()
			var owned []bool
			err := store.InTxOptimistic(ctx, t.Name(), func(q repo.Queries) error {
				msgID := "msg_keyed" + map[bool]string{true: "_tx", false: ""}[!q.Optimistic()]
				return optimisticReply(t, q, msgID, func() {
					ok, err := q.BindIdempotencyKey(ctx, "key_1", "k", "req_1", msgID)
					if err != nil {
						t.Fatal(err)
					}
					owned = append(owned, ok)
					if takenOver && q.Optimistic() {
						if _, err := store.DB.ExecContext(ctx, `UPDATE idempotency_keys SET request_id = 'req_2'`); err != nil {
							t.Fatal(err)
						}
					}
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			var bound []string
			if err := store.DB.SelectContext(ctx, &bound, `SELECT coalesce(message_id, '') FROM idempotency_keys`); err != nil {
				t.Fatal(err)
			}
			stored := count(t, store, `SELECT count(*) FROM messages WHERE id LIKE 'msg_keyed%'`)
			switch {
			case !takenOver && (store.Statements()-before != 2 || len(owned) != 1 || bound[0] != "msg_keyed" || stored != 1):
				t.Errorf("%d statements, owned %v, key bound to %q, %d stored; want 2, [true], msg_keyed, 1",
					store.Statements()-before, owned, bound[0], stored)
			case takenOver && (len(owned) != 2 || owned[1] || bound[0] != "" || stored != 1):
				// The transaction's run wrote its reply (the test's function
				// does not stop at false, as bindKey does) but not the key.
				t.Errorf("owned %v, key bound to %q, %d stored; want [true false], unbound, 1 (the transaction's)",
					owned, bound[0], stored)
			}
		})
	}
}

// TestOptimisticReplyWaitsForItsConversationFirst: the writes' statement
// locks the conversation before the Idempotency-Key's row, as the
// transaction does, so while it waits for the conversation a retry of the
// request can still read and take over its key.
func TestOptimisticReplyWaitsForItsConversationFirst(t *testing.T) {
	store := sendFixture(t)
	ctx := t.Context()
	if ok, err := store.ClaimIdempotencyKey(ctx, &repo.IdempotencyRecord{APIKeyID: "key_1", Key: "k",
		WorkspaceID: "ws_1", RequestHash: "h", RequestID: "req_1", CreatedAt: time.Now()}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	err := repotest.WhileWaiting(t, store, "conv_nocontact", func() error {
		return store.InTxOptimistic(ctx, t.Name(), func(q repo.Queries) error {
			return optimisticReply(t, q, "msg_waits", func() {
				if ok, err := q.BindIdempotencyKey(ctx, "key_1", "k", "req_1", "msg_waits"); err != nil || !ok {
					t.Error(ok, err)
				}
			})
		})
	}, func() {
		if repotest.Locked(t, store, `SELECT 1 FROM idempotency_keys WHERE key = 'k' FOR UPDATE NOWAIT`) {
			t.Error("waiting for the conversation, the reply held its Idempotency-Key's row already")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, store, `SELECT count(*) FROM idempotency_keys WHERE message_id = 'msg_waits'`); n != 1 {
		t.Errorf("%d keys bound to the reply, want 1", n)
	}
}
