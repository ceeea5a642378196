package send

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// noLinks signs nothing: the messages here have no attachments.
type noLinks struct{}

func (noLinks) URL(string) string                 { return "" }
func (noLinks) SignAttachments(...*model.Message) {}

// sendingThread stores a WhatsApp message msg_1 still sending in conv_1
// of ws_1, and returns a service over the store.
func sendingThread(t *testing.T, live bool) (*repo.Store, *Service, *repo.Message) {
	t.Helper()
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "whatsapp", live)
	msg := repotest.Message(conv, "msg_1", "outbound", "sending", "")
	repotest.Thread(t, store, conv, msg)
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	return store, &Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}, Files: noLinks{}}, msg
}

// The sweep's give-up locks the conversation and then the message, as the
// send's confirm does: while another transaction holds the conversation,
// it waits without holding the message. In both modes.
func TestGiveUpLocksTheConversationFirst(t *testing.T) {
	for _, live := range []bool{true, false} {
		store, r, _ := sendingThread(t, live)
		if err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
			return r.giveUp(t.Context(), "ws_1", "msg_1")
		}); err != nil {
			t.Fatal(err)
		}
		var status, code string
		var events int
		if err := store.DB.QueryRow(`SELECT status, delivery->'error'->>'code',
			(SELECT count(*) FROM events WHERE type = $1) FROM messages WHERE id = 'msg_1'`, event.MessageStatus).
			Scan(&status, &code, &events); err != nil || status != "failed" || code != "provider_unknown" || events != 1 {
			t.Errorf("live %v: message %s (%s), %d message.status events (%v); want failed (provider_unknown), 1",
				live, status, code, events, err)
		}
	}
}

// A refused send's release locks the conversation before it removes the
// message and takes it off the conversation's count.
func TestReleaseLocksTheConversationFirst(t *testing.T) {
	store, r, msg := sendingThread(t, true)
	res := &reservation{msg: msg, ob: &channels.Message{Livemode: true, Channel: "whatsapp",
		Account: channels.Account{ID: "acc_1"}}}
	refusal := &channels.Refusal{Code: "recipient_unreachable", Reason: "no such number"}
	err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return r.release(t.Context(), res, refusal)
	})
	if err == nil {
		t.Fatal("a release answered no refusal")
	}
	var messages, count int
	if err := store.DB.QueryRow(`SELECT (SELECT count(*) FROM messages), message_count FROM conversations
		WHERE id = 'conv_1'`).Scan(&messages, &count); err != nil || messages != 0 || count != 0 {
		t.Errorf("%d messages, message_count %d (%v) after the release; want 0, 0", messages, count, err)
	}
}
