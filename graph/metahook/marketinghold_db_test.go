package metahook

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/repo"
)

// A failed status with 131049 (the customer's per-user marketing limit)
// holds that customer's marketing messages for 60 s on the number, and
// nothing else: not the customer's other messages, not other customers.
func TestA131049StatusHoldsOnlyThatCustomersMarketing(t *testing.T) {
	store, s := whatsAppThread(t, "sent", `{"provider_message_id": "wamid.1", "sent_at": "2026-03-04T05:06:07.000Z"}`)
	if _, err := store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "whatsapp", ProviderID: "wamid.1",
		MessageID: "msg_1", Status: "sent"}); err != nil {
		t.Fatal(err)
	}
	st := &meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "pnid_1"}, ID: "wamid.1", Status: "failed",
		RecipientID: "15551234567", Errors: []meta.WhatsAppError{{Code: 131049, Title: "This message was not delivered to maintain healthy ecosystem engagement."}}}
	if err := s.status(t.Context(), st, s.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	held := func(recipient string, marketing bool, at time.Time) bool {
		t.Helper()
		until, err := store.HoldUntil(t.Context(), "ws_1", "wa_1", recipient, marketing, at)
		if err != nil {
			t.Fatal(err)
		}
		return until != nil
	}
	now := s.Clock.Now()
	if !held("+15551234567", true, now) || !held("+15551234567", true, now.Add(59*time.Second)) {
		t.Error("the customer's marketing is not held for 60 s")
	}
	if held("+15551234567", false, now) || held("+15557654321", true, now) {
		t.Error("a 131049 held the customer's other messages, or another customer's marketing")
	}
	if held("+15551234567", true, now.Add(61*time.Second)) {
		t.Error("the hold outlived its 60 s")
	}
}
