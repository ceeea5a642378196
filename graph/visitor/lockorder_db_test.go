package visitor

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// noLinks signs nothing: the message here has no attachments.
type noLinks struct{}

func (noLinks) URL(string) string                 { return "" }
func (noLinks) SignAttachments(...*model.Message) {}

// A widget's receipt locks the conversation and then the message, as the
// send's confirm does: while another transaction holds the conversation,
// it waits without holding the message.
func TestReceiptLocksTheConversationFirst(t *testing.T) {
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "website", true)
	repotest.Thread(t, store, conv, repotest.Message(conv, "msg_1", "outbound", "sent", `{"sent_at": "2026-03-04T05:06:07.000Z"}`))
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	r := &Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}, Files: noLinks{}}
	if err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return r.Delivered(t.Context(), "ws_1", "msg_1")
	}); err != nil {
		t.Fatal(err)
	}
	var status string
	var events int
	if err := store.DB.QueryRow(`SELECT status, (SELECT count(*) FROM events WHERE type = $1) FROM messages
		WHERE id = 'msg_1'`, event.MessageStatus).Scan(&status, &events); err != nil || status != "delivered" || events != 1 {
		t.Errorf("message %s, %d message.status events (%v); want delivered, 1", status, events, err)
	}
}

// A visitor without a contact yet (no message so far) reads nothing: its
// receipt names no message of it, whoever's message the id is.
func TestReceiptOfAVisitorWithoutContact(t *testing.T) {
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "website", true)
	repotest.Thread(t, store, conv, repotest.Message(conv, "msg_1", "outbound", "delivered", `{"delivered_at": "2026-03-04T05:06:07.000Z"}`))
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	r := &Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}, Files: noLinks{}}
	err := r.Read(t.Context(), &repo.Visitor{ID: "vis_1", WorkspaceID: "ws_1", WebsiteID: conv.WebsiteID}, "msg_1")
	if code(err) != apierr.MessageNotFound {
		t.Errorf("read by a visitor without contact: %v", err)
	}
	var status string
	if err := store.DB.Get(&status, `SELECT status FROM messages WHERE id = 'msg_1'`); err != nil || status != "delivered" {
		t.Errorf("the message is %s (%v), want delivered", status, err)
	}
}
