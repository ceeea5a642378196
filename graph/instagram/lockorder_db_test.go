package instagram_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// An unsent DM locks the conversation and then the message, as the send's
// confirm does: while another transaction holds the conversation, it waits
// without holding the message.
func TestUnsentLocksTheConversationFirst(t *testing.T) {
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "instagram", true)
	repotest.Thread(t, store, conv, repotest.Message(conv, "msg_1", "inbound", "received", ""))
	if _, err := store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "instagram", ProviderID: "mid.1",
		MessageID: "msg_1", Status: "received"}); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	r := &instagram.Service{Store: store, Events: event.Recorder{Clock: now}}
	if err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return r.Unsent(t.Context(), repo.Scope{WorkspaceID: "ws_1", Livemode: true}, &repo.Account{ID: "acc_1"}, "mid.1")
	}); err != nil {
		t.Fatal(err)
	}
	var deleted bool
	var events int
	if err := store.DB.QueryRow(`SELECT deleted, (SELECT count(*) FROM events WHERE type = $1) FROM messages
		WHERE id = 'msg_1'`, event.MessageStatus).Scan(&deleted, &events); err != nil || !deleted || events != 1 {
		t.Errorf("message deleted %v, %d message.status events (%v); want true, 1", deleted, events, err)
	}
}
