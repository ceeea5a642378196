package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The customer's business-scoped user id, and a webhook of one who adopted a
// username: contacts[] has user_id and no wa_id, the message from_user_id and
// no from
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
const hookBSUID = "US.13491208655302741918"

func usernameMessage(wamid, text string, withPhone bool) map[string]any {
	m := map[string]any{"from_user_id": hookBSUID, "id": wamid, "timestamp": itoa(resttest.Epoch.Unix()), "type": "text",
		"text": map[string]any{"body": text}}
	c := map[string]any{"profile": map[string]any{"name": "Ana", "username": "@ana.lopez"}, "user_id": hookBSUID}
	if withPhone {
		m["from"], c["wa_id"] = "15550009077", "15550009077"
	}
	v := waValue("messages", m)
	v["contacts"] = []any{c}
	return waChange("messages", v)
}

// A customer with no phone in the webhook is a contact by user id; replies
// and new sends to it go with recipient; once Meta shares the phone the
// same contact gains it and sends go with to.
func TestMetaHookBusinessScopedUserID(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(usernameMessage("wamid.BSUID1", "hi, no phone here", false))
	var contactID, convID string
	if err := h.Store.DB.Get(&contactID, `SELECT id FROM contacts WHERE livemode AND whatsapp_user_id = $1 AND phone IS NULL`, hookBSUID); err != nil {
		t.Fatalf("no contact by user id without a phone: %v", err)
	}
	if err := h.Store.DB.Get(&convID, `SELECT id FROM conversations WHERE contact_id = $1`, contactID); err != nil {
		t.Fatal(err)
	}
	c := h.Want(h.Do("GET", "/v1/contacts/"+contactID, "live_all", nil), 200, "").Data()
	if c["whatsapp_user_id"] != hookBSUID || c["phone"] != nil || c["name"] != "Ana" {
		t.Fatalf("contact %v", c)
	}
	status, body := graphqlMode(t, h.API, "admin-token", "ws_main", true, `{ contact(id: "`+contactID+`") { phone whatsappUserId } }`)
	data, _ := body["data"].(map[string]any)
	if gc, _ := data["contact"].(map[string]any); status != 200 || gc["whatsappUserId"] != hookBSUID {
		t.Fatalf("GraphQL contact: %d %v", status, body)
	}

	sent := func(n int) map[string]any {
		t.Helper()
		reqs := h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+hookPNID+"/messages" })
		if len(reqs) != n {
			t.Fatalf("%d sends, want %d", len(reqs), n)
		}
		return reqs[n-1].JSON()
	}
	msg := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": convID, "text": "hello Ana"}), 201, "").Data()
	body0 := sent(1)
	if body0["recipient"] != hookBSUID || body0["to"] != nil || body0["biz_opaque_callback_data"] != msg["id"] {
		t.Fatalf("reply to a customer known by user id: %v", body0)
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": hookBSUID, "whatsapp_account_id": "wa_main",
		"text": "a new send by user id"}), 201, "")
	if body1 := sent(2); body1["recipient"] != hookBSUID || body1["to"] != nil {
		t.Fatalf("send to a user id: %v", body1)
	}
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND whatsapp_user_id = $1`, hookBSUID); n != 1 {
		t.Fatalf("%d contacts with the user id", n)
	}

	// The phone arrives: the same contact gains it, and to is used.
	h.deliver(usernameMessage("wamid.BSUID2", "now with my phone", true))
	c = h.Want(h.Do("GET", "/v1/contacts/"+contactID, "live_all", nil), 200, "").Data()
	if c["phone"] != "+15550009077" || c["whatsapp_user_id"] != hookBSUID {
		t.Fatalf("contact after the phone came: %v", c)
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": convID, "text": "got your number"}), 201, "")
	if body2 := sent(3); body2["to"] != "15550009077" || body2["recipient"] != nil {
		t.Fatalf("reply once the phone is known: %v", body2)
	}
}

// A failed status that names the customer only by recipient_user_id (a
// 131050: marketing stopped) sets the marketing opt-out of the contact with
// that user id.
func TestMetaHookFailedStatusByUserID(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(usernameMessage("wamid.BSUID3", "hi", false))
	msg := h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": hookBSUID, "whatsapp_account_id": "wa_main",
		"template": tpl("order_update", "A-1")}), 201, "").Data()
	wamid := msg["delivery"].(map[string]any)["provider_message_id"].(string)
	st := map[string]any{"id": wamid, "recipient_user_id": hookBSUID, "status": "failed", "timestamp": itoa(resttest.Epoch.Unix() + 5),
		"errors": []any{map[string]any{"code": 131050, "title": "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business"}}}
	h.deliver(waChange("messages", waValue("statuses", st)))
	var optedOut bool
	if err := h.Store.DB.Get(&optedOut, `SELECT marketing_opt_out_whatsapp FROM contacts WHERE livemode AND whatsapp_user_id = $1`, hookBSUID); err != nil || !optedOut {
		t.Fatalf("marketing opt-out %v, %v", optedOut, err)
	}
	if got := h.messageOf(wamid); got["status"] != "failed" {
		t.Fatalf("message %v", got)
	}
}

// System messages move the customer's identity: user_changed_user_id gives
// the contact its new user id, user_changed_number its new phone and the
// new user id that comes with it; the contact keeps its id
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/system/:
// no contacts array; system.user_id is the new business-scoped user id).
func TestMetaHookUserIDChanges(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(usernameMessage("wamid.SYS0", "hello", true))
	var contactID string
	if err := h.Store.DB.Get(&contactID, `SELECT id FROM contacts WHERE livemode AND whatsapp_user_id = $1`, hookBSUID); err != nil {
		t.Fatal(err)
	}
	system := func(wamid string, m map[string]any) map[string]any {
		m["id"], m["timestamp"], m["type"] = wamid, itoa(resttest.Epoch.Unix()+1), "system"
		v := waValue("messages", m)
		delete(v, "contacts")
		return waChange("messages", v)
	}
	h.deliver(system("wamid.SYS1", map[string]any{"from_user_id": hookBSUID,
		"system": map[string]any{"type": "user_changed_user_id", "body": "User's id changed", "user_id": "US.22222222222222222222"}}))
	c := h.Want(h.Do("GET", "/v1/contacts/"+contactID, "live_all", nil), 200, "").Data()
	if c["whatsapp_user_id"] != "US.22222222222222222222" || c["phone"] != "+15550009077" {
		t.Fatalf("after user_changed_user_id: %v", c)
	}
	h.deliver(system("wamid.SYS2", map[string]any{"from": "15550009077",
		"system": map[string]any{"type": "user_changed_number", "body": "User Ana changed from 15550009077 to 15550009088",
			"wa_id": "15550009088", "user_id": "US.33333333333333333333"}}))
	c = h.Want(h.Do("GET", "/v1/contacts/"+contactID, "live_all", nil), 200, "").Data()
	if c["whatsapp_user_id"] != "US.33333333333333333333" || c["phone"] != "+15550009088" {
		t.Fatalf("after user_changed_number: %v", c)
	}
	if n := h.count(`SELECT count(*) FROM events WHERE type = 'contact.updated' AND envelope->'data'->>'id' = $1
		AND envelope->'data'->'changed' ? 'whatsapp_user_id'`, contactID); n != 2 {
		t.Fatalf("%d contact.updated naming whatsapp_user_id, want 2", n)
	}
	// A system message that names no customer changes nothing and fails nothing.
	h.deliver(system("wamid.SYS3", map[string]any{"system": map[string]any{"type": "user_changed_user_id", "user_id": "US.44444444444444444444"}}))
}

// The sandbox takes a WhatsApp customer known only by business-scoped user
// id too: the simulated message makes a contact with whatsapp_user_id and
// no phone, and a send to that user id continues its conversation.
func TestSandboxWhatsAppUserID(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	data := api.Inbound("whatsapp", hookBSUID, "hi from a username")
	conv := data["conversation"].(map[string]any)
	var contactID string
	if err := api.Store.DB.Get(&contactID, `SELECT id FROM contacts WHERE NOT livemode AND whatsapp_user_id = $1 AND phone IS NULL`, hookBSUID); err != nil {
		t.Fatalf("no sandbox contact by user id: %v", err)
	}
	sent := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "to": hookBSUID, "whatsapp_account_id": "wa_main",
		"text": "hello"}), 201, "").Data()
	if sent["conversation_id"] != conv["id"] {
		t.Fatalf("the send went to %v, want the customer's conversation %v", sent["conversation_id"], conv["id"])
	}
	api.Want(sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "to": "US.lower-case!", "whatsapp_account_id": "wa_main",
		"text": "hello"}), 400, "invalid_phone")
}

// customerMessage is a webhook of a customer with a phone ("" for none)
// and a business-scoped user id ("" for none).
func customerMessage(wamid, phone, userID string) map[string]any {
	m := map[string]any{"id": wamid, "timestamp": itoa(resttest.Epoch.Unix()), "type": "text", "text": map[string]any{"body": "hello"}}
	c := map[string]any{"profile": map[string]any{"name": "Ana"}}
	if phone != "" {
		m["from"], c["wa_id"] = phone, phone
	}
	if userID != "" {
		c["user_id"] = userID
		if phone == "" {
			m["from_user_id"] = userID
		}
	}
	v := waValue("messages", m)
	v["contacts"] = []any{c}
	return waChange("messages", v)
}

// A contact known by phone gains the user id its customer's webhook
// brings, unless another contact holds that user id: both then stay as
// they are, and the message joins the phone's contact.
func TestMetaHookPhoneContactGainsUserID(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(customerMessage("wamid.PHONE1", "15550009077", ""))
	h.deliver(customerMessage("wamid.PHONE2", "15550009077", hookBSUID))
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND whatsapp_user_id = $1 AND phone = '+15550009077'`, hookBSUID); n != 1 {
		t.Fatalf("the phone's contact did not gain the user id (%d)", n)
	}

	const other = "US.20000000000000000002"
	h.deliver(customerMessage("wamid.USER1", "", other))
	h.deliver(customerMessage("wamid.PHONE3", "15550009078", ""))
	h.deliver(customerMessage("wamid.PHONE4", "15550009078", other))
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND phone = '+15550009078' AND whatsapp_user_id IS NULL`); n != 1 {
		t.Fatalf("the second phone's contact took a user id another contact holds (%d without)", n)
	}
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND whatsapp_user_id = $1 AND phone IS NULL`, other); n != 1 {
		t.Fatalf("the contact holding the user id changed (%d as it was)", n)
	}
	if n := h.count(`SELECT count(*) FROM messages m JOIN conversations v ON v.id = m.conversation_id
		JOIN contacts c ON c.id = v.contact_id WHERE c.phone = '+15550009078'`); n != 2 {
		t.Fatalf("%d messages with the second phone's contact, want 2", n)
	}
}
