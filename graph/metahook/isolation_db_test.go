package metahook

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// hostileNumber adds a workspace ws_2 with a number wa_2 of its own
// (phone_number_id pnid_2) beside whatsAppThread's victim, and gives the
// service an inbound service.
func hostileNumber(t *testing.T, store *repo.Store, s *Service) target {
	t.Helper()
	conv := repotest.Conversation("ws_2", "conv_2", "whatsapp", true)
	conv.WebsiteID, conv.AccountID = "web_2", "wa_2"
	repotest.Thread(t, store, conv)
	acc := &repo.Account{WorkspaceID: "ws_2", ID: "wa_2", Channel: "whatsapp", WebsiteID: "web_2", Name: "Hostile",
		PhoneNumber: "+15550002", Status: "connected"}
	if err := store.UpsertAccount(t.Context(), acc); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertAccountProvider(t.Context(), &repo.AccountProvider{WorkspaceID: "ws_2", AccountID: "wa_2",
		Channel: "whatsapp", ProviderKey: "pnid_2", Sealed: "x", UpdatedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	s.Inbound = &inbound.Service{Store: store, Clock: s.Clock, Events: event.Recorder{Clock: s.Clock}}
	return target{acc: acc}
}

// A status routed by another workspace's number (its phone_number_id)
// naming the victim's wamid, or its message by biz_opaque_callback_data,
// changes nothing of the victim's and announces nothing (an hour after it
// arrived it is dropped as a wamid of no message of that number); a
// reaction or a reply received on that number naming the wamid links to
// nothing.
func TestHostileWhatsAppEventsNamingAnotherWorkspacesWamid(t *testing.T) {
	route := meta.WhatsAppRoute{PhoneNumberID: "pnid_2"}
	failed := []meta.WhatsAppError{{Code: 131050, Title: "Unable to deliver"}}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, store *repo.Store, s *Service, hostile target) error
	}{
		{"delivered", func(t *testing.T, _ *repo.Store, s *Service, _ target) error {
			return s.status(t.Context(), &meta.WhatsAppStatus{WhatsAppRoute: route, ID: "wamid.1", Status: "delivered"}, s.Clock.Now().Add(-time.Hour))
		}},
		{"failed, opting the customer out", func(t *testing.T, _ *repo.Store, s *Service, _ target) error {
			return s.status(t.Context(), &meta.WhatsAppStatus{WhatsAppRoute: route, ID: "wamid.1", Status: "failed",
				RecipientID: "15551234567", Errors: failed}, s.Clock.Now().Add(-time.Hour))
		}},
		{"callback naming the victim's message", func(t *testing.T, _ *repo.Store, s *Service, _ target) error {
			return s.status(t.Context(), &meta.WhatsAppStatus{WhatsAppRoute: route, ID: "wamid.9", Status: "read",
				BizOpaqueCallbackData: "msg_1"}, s.Clock.Now().Add(-time.Hour))
		}},
		{"reaction and reply", func(t *testing.T, store *repo.Store, s *Service, hostile target) error {
			reaction := &meta.WhatsAppMessage{WhatsAppRoute: route, ID: "wamid.h1", From: "15557654321", Type: "reaction",
				Timestamp: s.Clock.Now(), Reaction: &meta.WhatsAppReaction{MessageID: "wamid.1", Emoji: "👍"}}
			reply := &meta.WhatsAppMessage{WhatsAppRoute: route, ID: "wamid.h2", From: "15557654321", Type: "text", Text: "re",
				Timestamp: s.Clock.Now(), Context: &meta.WhatsAppContext{ID: "wamid.1"}}
			for _, m := range []*meta.WhatsAppMessage{reaction, reply} {
				if err := s.message(t.Context(), hostile, m); err != nil {
					return err
				}
			}
			var linked int
			if err := store.DB.Get(&linked, `SELECT count(*) FROM messages WHERE workspace_id = 'ws_2'
				AND content::text LIKE '%msg_1%'`); err != nil || linked != 0 {
				t.Errorf("%d hostile messages link to the victim's message (%v)", linked, err)
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			store, s := whatsAppThread(t, "sent", `{"provider_message_id": "wamid.1", "sent_at": "2026-03-04T05:06:07.000Z"}`)
			if _, err := store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "whatsapp", ProviderID: "wamid.1",
				MessageID: "msg_1", Status: "sent"}); err != nil {
				t.Fatal(err)
			}
			hostile := hostileNumber(t, store, s)
			if err := c.run(t, store, s, hostile); err != nil {
				t.Fatal(err)
			}
			wantMessage(t, store, "sent", 0)
			var part string
			var touched int
			if err := store.DB.Get(&part, `SELECT status FROM provider_messages WHERE provider_id = 'wamid.1'`); err != nil || part != "sent" {
				t.Errorf("the victim's wamid is %q (%v), want sent", part, err)
			}
			if err := store.DB.Get(&touched, `SELECT (SELECT count(*) FROM events WHERE workspace_id = 'ws_1')
				+ (SELECT count(*) FROM provider_holds WHERE workspace_id = 'ws_1')
				+ (SELECT count(*) FROM contacts WHERE workspace_id = 'ws_1')`); err != nil || touched != 0 {
				t.Errorf("%d events, holds or contacts in the victim's workspace (%v), want 0", touched, err)
			}
		})
	}
}
