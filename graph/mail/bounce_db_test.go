package mail

import (
	"encoding/base32"
	"strings"
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

// Messages sent in one burst (a campaign, in the same millisecond) have
// ids in order, but who read one of them (its bounce address,
// bounces+{id}@…, and its Message-ID) cannot make the others' from it: a
// DSN to each of the next ids changes nothing.
func TestDSNToAGuessedBounceAddressChangesNothing(t *testing.T) {
	store := repotest.NewStore(t)
	now := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC)
	conv := repotest.Conversation("ws_1", "conv_1", "email", true)
	var msgs []*repo.Message
	for _, to := range []string{"mallory@example.com", "victim@example.com"} {
		m := repotest.Message(conv, repo.NewID("msg_", now), "outbound", "sent", `{"sent_at": "2026-03-04T05:06:07.000Z"}`)
		m.Email = repo.JSONB(`{"from": "support@verified.test", "to": ["` + to + `"], "cc": []}`)
		msgs = append(msgs, m)
	}
	repotest.Thread(t, store, conv, msgs...)
	if err := store.UpsertEmailDomain(t.Context(), &repo.EmailDomain{WorkspaceID: "ws_1", Domain: "verified.test",
		Verified: true}); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return now }
	p := &Processor{Store: store, Clock: clock, Events: event.Recorder{Clock: clock}}
	dsn := &email.Parsed{DSN: &email.DSN{Recipients: []email.DSNRecipient{
		{Recipient: "victim@example.com", Action: "failed", Status: "5.1.1"}}}}
	id := msgs[0].ID
	for range 64 {
		id = nextID(t, id)
		if err := store.InTx(t.Context(), func(q repo.Queries) error {
			return p.bounce(t.Context(), q, id, "verified.test", dsn)
		}); err != nil {
			t.Fatal(err)
		}
	}
	var status string
	if err := store.DB.Get(&status, `SELECT status FROM messages WHERE id = $1`, msgs[1].ID); err != nil || status != "sent" {
		t.Errorf("the next message (%s after %s) is %s (%v) after DSNs to guessed addresses", msgs[1].ID, msgs[0].ID, status, err)
	}
}

// nextID is the id after id: its 144 bits plus one.
func nextID(t *testing.T, id string) string {
	t.Helper()
	enc := base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)
	b, err := enc.DecodeString(strings.TrimPrefix(id, "msg_"))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i]++; b[i] != 0 {
			break
		}
	}
	return "msg_" + enc.EncodeToString(b)
}
