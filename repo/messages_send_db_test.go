package repo_test

import (
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// sentAt is when the messages of these tests were sent, unless they say.
var sentAt = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// storeMessage stores a sent outbound WhatsApp message of ws_1.
func storeMessage(t *testing.T, store *repo.Store, id, convID string, live bool) {
	t.Helper()
	storeSent(t, store, id, convID, live, sentAt, nil)
}

// storeSent stores a message of ws_1 as storeMessage does, sent at a time;
// change, when given, alters it first.
func storeSent(t *testing.T, store *repo.Store, id, convID string, live bool, at time.Time, change func(*repo.Message)) {
	t.Helper()
	text := "hello"
	m := &repo.Message{ID: id, WorkspaceID: "ws_1", Livemode: live, ConversationID: convID, Channel: "whatsapp",
		Direction: "outbound", SenderType: "api", Type: "text", Text: &text, Attachments: repo.JSONB(`[]`),
		Status: "sent", Delivery: repo.JSONB(`{"sent_at": "2026-03-04T05:06:07.000Z"}`), CreatedAt: at}
	if change != nil {
		change(m)
	}
	if err := store.UpsertMessage(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateMessageDeliveries: one statement writes each message's own
// status and delivery, in either mode, and leaves the other messages alone;
// a message that is not there fails the whole statement.
func TestUpdateMessageDeliveries(t *testing.T) {
	store := sendFixture(t)
	storeMessage(t, store, "msg_1", "conv_wa", false)
	storeMessage(t, store, "msg_2", "conv_web", false)
	storeMessage(t, store, "msg_live", "conv_live", true)
	storeMessage(t, store, "msg_other", "conv_wa", false)
	read := func(live bool, id string) *repo.Message {
		m, err := store.LockMessage(t.Context(), "ws_1", live, id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	want := map[string]*repo.Message{"msg_1": read(false, "msg_1"), "msg_2": read(false, "msg_2"), "msg_live": read(true, "msg_live")}
	want["msg_1"].Status, want["msg_1"].Delivery = "delivered", repo.JSONB(`{"delivered_at": "2026-03-04T05:06:09.000Z"}`)
	want["msg_2"].Status, want["msg_2"].Delivery = "failed", nil
	want["msg_live"].Status, want["msg_live"].Delivery = "read", repo.JSONB(`{"read_at": "2026-03-04T05:06:10.000Z"}`)
	before := store.Statements()
	inTx(t, store, func(q repo.Queries) error {
		return q.UpdateMessageDeliveries(t.Context(), []*repo.Message{want["msg_1"], want["msg_2"], want["msg_live"]})
	})
	if used := store.Statements() - before; used != 1 {
		t.Errorf("%d statements, want 1", used)
	}
	for id, w := range want {
		if got := read(w.Livemode, id); got.Status != w.Status || string(got.Delivery) != string(w.Delivery) {
			t.Errorf("%s: %s %s, want %s %s", id, got.Status, got.Delivery, w.Status, w.Delivery)
		}
	}
	if got := read(false, "msg_other"); got.Status != "sent" {
		t.Errorf("a message not named became %s", got.Status)
	}

	gone := *want["msg_1"]
	gone.ID = "msg_gone"
	changed := *want["msg_2"]
	changed.Status = "delivered"
	err := store.InTx(t.Context(), func(q repo.Queries) error {
		return q.UpdateMessageDeliveries(t.Context(), []*repo.Message{&changed, &gone})
	})
	if !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("with a missing message: %v, want ErrNotFound", err)
	}
	if got := read(false, "msg_2"); got.Status != "failed" {
		t.Errorf("the failed statement left msg_2 %s", got.Status)
	}
}
