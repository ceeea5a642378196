package meta_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// Webhooks with business-scoped user ids, in the shapes of
// https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids:
// contacts[] carries user_id (and parent_user_id, profile.username), a
// message from_user_id, a status recipient_user_id; the phone (wa_id,
// from, recipient_id) is left out for a customer with a username.
const waUsernames = `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"field":"messages","value":{
 "messaging_product":"whatsapp",
 "metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
 "contacts":[{"profile":{"name":"Ana","username":"@ana.lopez"},"user_id":"US.13491208655302741918","parent_user_id":"US.ENT.11815799212886844830"}],
 "messages":[{"from_user_id":"US.13491208655302741918","id":"wamid.U1","timestamp":"1700000000","type":"text","text":{"body":"hi"}}]
}},{"field":"messages","value":{
 "messaging_product":"whatsapp",
 "metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
 "contacts":[{"profile":{"name":"Bo"},"wa_id":"15557654321","user_id":"BR.1502576394655843"}],
 "messages":[{"from":"15557654321","id":"wamid.U2","timestamp":"1700000001","type":"text","text":{"body":"oi"}}],
 "statuses":[{"id":"wamid.OUT1","status":"delivered","timestamp":"1700000002","recipient_id":"15557654321"}]
}},{"field":"messages","value":{
 "messaging_product":"whatsapp",
 "metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
 "statuses":[{"id":"wamid.OUT2","status":"failed","timestamp":"1700000003","recipient_user_id":"US.13491208655302741918",
   "errors":[{"code":131050,"title":"Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business"}]}]
}},{"field":"user_preferences","value":{
 "messaging_product":"whatsapp",
 "metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
 "contacts":[{"profile":{"name":"Ana"},"user_id":"US.13491208655302741918"}],
 "user_preferences":[{"user_id":"US.13491208655302741918","detail":"User requested to stop marketing messages","category":"marketing_messages","value":"stop","timestamp":1700000004}]
}}]}]}`

func TestParseBusinessScopedUserIDs(t *testing.T) {
	p := parse(t, waUsernames)
	if len(p.Events) != 5 {
		t.Fatalf("%d events", len(p.Events))
	}
	noPhone := p.Events[0].(*meta.WhatsAppMessage)
	if noPhone.From != "" || noPhone.UserID != "US.13491208655302741918" || noPhone.ProfileName != "Ana" || noPhone.Username != "@ana.lopez" {
		t.Fatalf("message without a phone %+v", noPhone)
	}
	both := p.Events[1].(*meta.WhatsAppMessage)
	if both.From != "15557654321" || both.UserID != "BR.1502576394655843" || both.ProfileName != "Bo" {
		t.Fatalf("message with both %+v", both)
	}
	delivered := p.Events[2].(*meta.WhatsAppStatus)
	if delivered.RecipientID != "15557654321" || delivered.RecipientUserID != "BR.1502576394655843" {
		t.Fatalf("status with contacts %+v", delivered)
	}
	failed := p.Events[3].(*meta.WhatsAppStatus)
	if failed.RecipientID != "" || failed.RecipientUserID != "US.13491208655302741918" || failed.Errors[0].Code != 131050 {
		t.Fatalf("failed status without contacts %+v", failed)
	}
	pref := p.Events[4].(*meta.WhatsAppUserPreference)
	if pref.WAID != "" || pref.UserID != "US.13491208655302741918" || pref.Value != "stop" {
		t.Fatalf("preference %+v", pref)
	}
}
