package repo_test

import (
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// heldReply writes what a reply writes into conv_nocontact of sendFixture:
// the conversation saved, a message and an event.
func heldReply(t *testing.T, q repo.Queries, convID, msgID, evtID string) error {
	t.Helper()
	c, err := q.LockConversation(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "conv_nocontact")
	if err != nil {
		return err
	}
	c.ID = convID
	return writeReply(t, q, c, msgID, evtID, "held")
}

// writeReply writes what a reply into conv_nocontact of sendFixture writes,
// over its conversation c as the caller read it: the conversation's
// update, the message (of text) and its event.
func writeReply(t *testing.T, q repo.Queries, c *repo.Conversation, msgID, evtID, text string) error {
	t.Helper()
	ctx, s := t.Context(), repo.Scope{WorkspaceID: "ws_1"}
	at := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC)
	c.MessageCount, c.LastMessageAt, c.UpdatedAt = c.MessageCount+1, at, at
	if err := q.UpdateConversation(ctx, s, c); err != nil {
		return err
	}
	if err := q.InsertMessage(ctx, &repo.Message{ID: msgID, WorkspaceID: "ws_1", ConversationID: "conv_nocontact",
		Channel: "whatsapp", Direction: "outbound", SenderType: "api", Type: "text", Text: &text,
		Status: "sent", CreatedAt: at}); err != nil {
		return err
	}
	return q.InsertEvent(ctx, &repo.Event{ID: evtID, WorkspaceID: "ws_1", Type: "message.sent",
		ConversationID: &c.ID, Envelope: repo.JSONB(`{}`), CreatedAt: at})
}

// replyStored counts which of a reply's message and event are stored.
func replyStored(t *testing.T, store *repo.Store, msgID, evtID string) int {
	t.Helper()
	return count(t, store, `SELECT count(*) FROM messages WHERE id = $1`, msgID) +
		count(t, store, `SELECT count(*) FROM events WHERE id = $1`, evtID)
}

func count(t *testing.T, store *repo.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := store.DB.GetContext(t.Context(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHeldWritesGoAsOneStatement: in a transaction the conversation saved,
// the message and the event inserted go to Postgres as one statement, at
// the commit, and all three are stored.
func TestHeldWritesGoAsOneStatement(t *testing.T) {
	store := sendFixture(t)
	before := store.Statements()
	inTx(t, store, func(q repo.Queries) error {
		if err := heldReply(t, q, "conv_nocontact", "msg_held", "evt_held"); err != nil {
			return err
		}
		if used := store.Statements() - before; used != 1 {
			t.Errorf("%d statements before the commit, want 1 (the lock; the writes are held)", used)
		}
		return nil
	})
	if used := store.Statements() - before; used != 2 {
		t.Errorf("%d statements, want 2: the lock and the held writes together", used)
	}
	if n := count(t, store, `SELECT message_count FROM conversations WHERE id = 'conv_nocontact'`); n != 2 {
		t.Errorf("message_count %d, want 2", n)
	}
	if n := replyStored(t, store, "msg_held", "evt_held"); n != 2 {
		t.Errorf("%d of the message and the event stored, want 2", n)
	}
}

// TestHeldWritesAreSeenByTheNextStatement: a statement after held writes,
// in the same transaction, sees them.
func TestHeldWritesAreSeenByTheNextStatement(t *testing.T) {
	store := sendFixture(t)
	inTx(t, store, func(q repo.Queries) error {
		if err := heldReply(t, q, "conv_nocontact", "msg_seen", "evt_seen"); err != nil {
			return err
		}
		m, err := q.Message(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "msg_seen")
		if err != nil {
			t.Errorf("the held message, read in its transaction: %v", err)
			return nil
		}
		if m.Text == nil || *m.Text != "held" {
			t.Errorf("the held message's text %v, want held", m.Text)
		}
		return nil
	})
}

// TestHeldWriteFailureRollsBack: a held write that fails fails the
// transaction at its commit, with its own error naming its statement, and nothing of the
// transaction is stored. Saving a conversation that is not there is
// ErrNotFound, as it was when the write ran at once.
func TestHeldWriteFailureRollsBack(t *testing.T) {
	store := sendFixture(t)
	err := store.InTx(t.Context(), func(q repo.Queries) error {
		return heldReply(t, q, "conv_gone", "msg_lost", "evt_lost")
	})
	if !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("commit of a save of a missing conversation: %v, want ErrNotFound", err)
	}
	if want := "held write UPDATE conversations: not found"; err == nil || err.Error() != want {
		t.Errorf("commit of a save of a missing conversation: %v, want %q", err, want)
	}
	if n := count(t, store, `SELECT count(*) FROM messages WHERE id = 'msg_lost'`) +
		count(t, store, `SELECT count(*) FROM events WHERE id = 'evt_lost'`); n != 0 {
		t.Errorf("%d rows of the failed transaction stored, want 0", n)
	}
	// A failing insert is its statement's error, translated as before.
	err = store.InTx(t.Context(), func(q repo.Queries) error {
		return heldReply(t, q, "conv_nocontact", "msg_dup", "evt_lost")
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.InTx(t.Context(), func(q repo.Queries) error {
		return heldReply(t, q, "conv_nocontact", "msg_dup", "evt_other")
	})
	var conflict *repo.ConflictError
	if !errors.As(err, &conflict) {
		t.Errorf("commit of a duplicate message id: %v, want a ConflictError", err)
	}
	// Postgres names the table the violation is in, and so the write of the
	// three sent together that failed.
	if want := "held write INSERT INTO messages: conflict on messages_pkey"; err == nil || err.Error() != want {
		t.Errorf("commit of a duplicate message id: %v, want %q", err, want)
	}
}

// TestSameStatementHeldTwiceKeepsItsOrder: two events in one transaction
// are not written by one statement (whose CTEs have no order); the first
// goes when the second is held, so their seqs follow the calls.
func TestSameStatementHeldTwiceKeepsItsOrder(t *testing.T) {
	store := sendFixture(t)
	before := store.Statements()
	at := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC)
	inTx(t, store, func(q repo.Queries) error {
		for _, id := range []string{"evt_first", "evt_second", "evt_third"} {
			if err := q.InsertEvent(t.Context(), &repo.Event{ID: id, WorkspaceID: "ws_1", Type: "contact.created",
				Envelope: repo.JSONB(`{}`), CreatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
	if used := store.Statements() - before; used != 3 {
		t.Errorf("%d statements for three events, want 3", used)
	}
	var ids []string
	if err := store.DB.SelectContext(t.Context(), &ids, `SELECT id FROM events
		WHERE id IN ('evt_first', 'evt_second', 'evt_third') ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] != "evt_first" || ids[1] != "evt_second" || ids[2] != "evt_third" {
		t.Errorf("events in seq order %v, want first, second, third", ids)
	}
}
