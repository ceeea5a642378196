package repotest

import (
	"errors"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo"
)

// ConversationFirst checks the lock order of a writer of a conversation's
// events (repo.LockConversationThenMessage): it runs fn while another
// transaction holds the conversation's row lock, and fails the test unless
// fn comes to wait for that lock without holding the message's, so that a
// third transaction can still lock the message. A writer that took the
// message first would deadlock with one that holds the conversation and
// waits for the message. It returns fn's error.
func ConversationFirst(t testing.TB, store *repo.Store, conversationID, messageID string, fn func() error) error {
	t.Helper()
	return WhileWaiting(t, store, conversationID, fn, func() {
		t.Helper()
		if Locked(t, store, `SELECT 1 FROM messages WHERE id = $1 FOR UPDATE NOWAIT`, messageID) {
			t.Errorf("waiting for conversation %s, the writer held message %s already", conversationID, messageID)
		}
	})
}

// WhileWaiting runs fn while another transaction holds the row lock of a
// conversation; once fn waits for that transaction, it calls waiting, then
// releases the conversation and returns fn's error. It fails the test when
// fn ends without having waited.
func WhileWaiting(t testing.TB, store *repo.Store, conversationID string, fn func() error, waiting func()) error {
	t.Helper()
	holder, err := store.DB.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // released below
	var pid int
	if err := holder.Get(&pid, `SELECT pg_backend_pid() FROM conversations WHERE id = $1 FOR UPDATE`, conversationID); err != nil {
		t.Fatalf("lock conversation %s: %v", conversationID, err)
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	for blocked := false; !blocked; {
		select {
		case err := <-done:
			t.Fatalf("finished (err %v) without waiting for conversation %s", err, conversationID)
		default:
		}
		// The holder holds nothing but the conversation's row.
		if err := store.DB.Get(&blocked, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE $1 = ANY(pg_blocking_pids(pid)))`, pid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	waiting()
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	return <-done
}

// Locked runs a FOR UPDATE NOWAIT query in a transaction of its own and
// says whether another transaction holds the row it asks for.
func Locked(t testing.TB, store *repo.Store, query string, args ...any) bool {
	t.Helper()
	tx, err := store.DB.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing was written
	_, err = tx.Exec(query, args...)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "55P03" { // lock_not_available
		return true
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return false
}
