package mail

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// A bounce locks the conversation and then the message, as the send's
// confirm does: while another transaction holds the conversation, it waits
// without holding the message.
func TestBounceLocksTheConversationFirst(t *testing.T) {
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "email", true)
	msg := repotest.Message(conv, "msg_1", "outbound", "sent", `{"sent_at": "2026-03-04T05:06:07.000Z"}`)
	msg.Email = repo.JSONB(`{"from": "support@verified.test", "to": ["ada@example.com"], "cc": []}`)
	repotest.Thread(t, store, conv, msg)
	if err := store.UpsertEmailDomain(t.Context(), &repo.EmailDomain{WorkspaceID: "ws_1", Domain: "verified.test",
		Verified: true}); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	p := &Processor{Store: store, Clock: now, Events: event.Recorder{Clock: now}}
	dsn := &email.Parsed{DSN: &email.DSN{Recipients: []email.DSNRecipient{{Recipient: "ada@example.com", Action: "failed", Status: "4.4.7"}}}}
	if err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return store.InTx(t.Context(), func(q repo.Queries) error {
			return p.bounce(t.Context(), q, "msg_1", "verified.test", dsn)
		})
	}); err != nil {
		t.Fatal(err)
	}
	var status string
	var events int
	if err := store.DB.QueryRow(`SELECT status, (SELECT count(*) FROM events WHERE type = $1) FROM messages
		WHERE id = 'msg_1'`, event.MessageStatus).Scan(&status, &events); err != nil || status != "failed" || events != 1 {
		t.Errorf("message %s, %d message.status events (%v); want failed, 1", status, events, err)
	}
}
