package metahook

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// whatsAppThread stores a live outbound WhatsApp message msg_1 in conv_1
// of ws_1, on the number wa_1 (phone_number_id pnid_1), and returns a
// service over the store.
func whatsAppThread(t *testing.T, status, delivery string) (*repo.Store, *Service) {
	t.Helper()
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "whatsapp", true)
	conv.AccountID = "wa_1"
	repotest.Thread(t, store, conv, repotest.Message(conv, "msg_1", "outbound", status, delivery))
	if err := store.UpsertAccount(t.Context(), &repo.Account{WorkspaceID: "ws_1", ID: "wa_1", Channel: "whatsapp",
		WebsiteID: "web_1", Name: "Support", PhoneNumber: "+15550001", Status: "connected", MarketingMessages: "on"}); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertAccountProvider(t.Context(), &repo.AccountProvider{WorkspaceID: "ws_1", AccountID: "wa_1",
		Channel: "whatsapp", ProviderKey: "pnid_1", Sealed: "x", UpdatedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) }
	return store, &Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}}
}

// wantMessage fails the test unless msg_1 has the status and ws_1 the
// number of message.status events.
func wantMessage(t *testing.T, store *repo.Store, status string, events int) {
	t.Helper()
	var got string
	var n int
	if err := store.DB.Get(&got, `SELECT status FROM messages WHERE id = 'msg_1'`); err != nil || got != status {
		t.Errorf("message status %q (%v), want %q", got, err, status)
	}
	if err := store.DB.Get(&n, `SELECT count(*) FROM events WHERE workspace_id = 'ws_1' AND type = $1`,
		event.MessageStatus); err != nil || n != events {
		t.Errorf("%d message.status events (%v), want %d", n, err, events)
	}
}

// A status of a known wamid locks the conversation and then the message,
// as the send's confirm does: while another transaction holds the
// conversation, it waits without holding the message.
func TestStatusLocksTheConversationFirst(t *testing.T) {
	store, s := whatsAppThread(t, "sent", `{"provider_message_id": "wamid.1", "sent_at": "2026-03-04T05:06:07.000Z"}`)
	if _, err := store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "whatsapp", ProviderID: "wamid.1",
		MessageID: "msg_1", Status: "sent"}); err != nil {
		t.Fatal(err)
	}
	st := &meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "pnid_1"}, ID: "wamid.1", Status: "delivered"}
	err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return s.status(t.Context(), st, s.Clock.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	wantMessage(t, store, "delivered", 1)
}

// A status naming a provider_unknown message by biz_opaque_callback_data
// settles it in the same order, and then applies to it as a known wamid.
func TestStatusSettlingLocksTheConversationFirst(t *testing.T) {
	store, s := whatsAppThread(t, "failed", `{"failed_at": "2026-03-04T05:07:07.000Z",
		"error": {"code": "provider_unknown", "message": "unknown"}}`)
	st := &meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "pnid_1"}, ID: "wamid.2",
		Status: "delivered", BizOpaqueCallbackData: "msg_1"}
	err := repotest.ConversationFirst(t, store, "conv_1", "msg_1", func() error {
		return s.status(t.Context(), st, s.Clock.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	wantMessage(t, store, "delivered", 2)
}
