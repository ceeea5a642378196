package inbound

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// Two deliveries of one mail (a sender's retry, a second MX) processed side
// by side both pass the Message-ID check; the one whose Message-ID insert
// waits for the other's commit and then finds it taken fails, so that its
// transaction rolls back (and the retry finds the mail stored), rather than
// storing the mail a second time.
func TestAMailStoredMeanwhileIsNotStoredTwice(t *testing.T) {
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "email", true)
	repotest.Thread(t, store, conv, repotest.Message(conv, "msg_1", "inbound", "received", ""))
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	r := &Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}}
	acc := &repo.Account{ID: "acc_1", WorkspaceID: "ws_1", Channel: "email", WebsiteID: "web_1", Address: "support@acme.test"}
	in := EmailIn{From: "ann@example.com", To: []string{acc.Address}, Subject: "Twice", Text: "delivered twice",
		MessageID: "twice@example.com"}

	// The other delivery has stored the mail and not committed yet.
	other, err := store.DB.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback() //nolint:errcheck // committed below
	var pid int
	if err := other.Get(&pid, `INSERT INTO email_message_ids (workspace_id, livemode, header_id, message_id,
		conversation_id, created_at) VALUES ('ws_1', true, $1, 'msg_1', 'conv_1', now()) RETURNING pg_backend_pid()`,
		in.MessageID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- store.InTx(t.Context(), func(q repo.Queries) error {
			_, err := r.ReceiveEmail(t.Context(), q, acc, in)
			return err
		})
	}()
	for blocked := false; !blocked; {
		select {
		case err := <-done:
			t.Fatalf("ReceiveEmail ended (err %v) without waiting for the other delivery", err)
		default:
		}
		if err := store.DB.Get(&blocked, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE $1 = ANY(pg_blocking_pids(pid)))`, pid); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("ReceiveEmail succeeded; want an error that rolls its copy back")
	}
	var copies int
	if err := store.DB.Get(&copies, `SELECT count(*) FROM messages WHERE text = $1`, in.Text); err != nil || copies != 0 {
		t.Errorf("%d copies of the mail stored by the second delivery (%v); want 0", copies, err)
	}
}
