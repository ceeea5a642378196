package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// richCase is one recorded message of a provider's reference page and
// where each of its values must land on the stored message: dotted paths
// of GET /v1/messages/{id} (and of its message.received event) to values;
// "$msg:<provider id>" is the id of our message with that provider id.
type richCase struct {
	source string
	id     string
	item   string
	want   map[string]any
}

// waRichCases are messages[] items of WhatsApp's messages webhook, shaped
// as the reference page in source shows them, with its example values.
var waRichCases = []richCase{
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/text/",
		id: "wamid.AD", item: `{"from":"15551234567","id":"wamid.AD","timestamp":"1749416383","type":"text",
		"text":{"body":"Does it come in another color?"},
		"referral":{"source_url":"https://fb.me/3cr4Wqqkv","source_id":"120226305854810726","source_type":"ad",
		 "body":"Summer succulents are here!","headline":"Chat with us","media_type":"image",
		 "image_url":"https://scontent.xx.fbcdn.net/v/t45.1/ad.jpg","ctwa_clid":"Aff-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4_0N",
		 "welcome_message":{"text":"Hi there! Let us know how we can help!"}}}`,
		want: map[string]any{"type": "text", "text": "Does it come in another color?", "provider_message_id": "wamid.AD",
			"forwarded": false, "reply_to": nil, "referral.source_url": "https://fb.me/3cr4Wqqkv", "referral.source_id": "120226305854810726",
			"referral.source_type": "ad", "referral.ad_id": "120226305854810726", "referral.body": "Summer succulents are here!",
			"referral.headline": "Chat with us", "referral.media_type": "image", "referral.image_url": "https://scontent.xx.fbcdn.net/v/t45.1/ad.jpg",
			"referral.ctwa_clid": "Aff-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4_0N", "referral.welcome_message": "Hi there! Let us know how we can help!"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/text/",
		id: "wamid.REPLY", item: `{"context":{"from":"15550783881","id":"wamid.AD"},"from":"15551234567","id":"wamid.REPLY",
		"timestamp":"1749416384","type":"text","text":{"body":"this one"}}`,
		want: map[string]any{"type": "text", "reply_to.provider_message_id": "wamid.AD", "reply_to.message_id": "$msg:wamid.AD", "referral": nil}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/text/",
		id: "wamid.FWD", item: `{"context":{"forwarded":true},"from":"15551234567","id":"wamid.FWD","timestamp":"1749416385",
		"type":"text","text":{"body":"look at this"}}`,
		want: map[string]any{"forwarded": true, "reply_to": nil}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/text/",
		id: "wamid.PRODUCT", item: `{"context":{"from":"15550783881","id":"wamid.CATALOG","referred_product":{"catalog_id":"194836987003835",
		"product_retailer_id":"di9ozbzfi4"}},"from":"15551234567","id":"wamid.PRODUCT","timestamp":"1749416386","type":"text",
		"text":{"body":"Can I get this in red?"}}`,
		want: map[string]any{"reply_to.provider_message_id": "wamid.CATALOG", "reply_to.message_id": nil,
			"reply_to.referred_product.catalog_id": "194836987003835", "reply_to.referred_product.product_retailer_id": "di9ozbzfi4"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/image/",
		// sha256 is that of the stand-in's bytes, which the refetch below checks.
		id: "wamid.IMAGE", item: `{"from":"15551234567","id":"wamid.IMAGE","timestamp":"1749416387","type":"image",
		"image":{"caption":"Where can I find this?","mime_type":"image/jpeg","sha256":"3tZ5k+ap4GJHQ9TfH0GsOIzdEPc+5yFJLUKL1vlaCvk=","id":"1003383421387256"}}`,
		want: map[string]any{"type": "image", "text": "Where can I find this?", "attachments.0.status": "failed",
			"attachments.0.provider_media_id": "1003383421387256", "attachments.0.mime_type": "image/jpeg",
			"attachments.0.sha256": "3tZ5k+ap4GJHQ9TfH0GsOIzdEPc+5yFJLUKL1vlaCvk=", "attachments.0.caption": "Where can I find this?",
			"attachments.0.size": float64(0)}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/document/",
		id: "wamid.DOC", item: `{"from":"15551234567","id":"wamid.DOC","timestamp":"1749416388","type":"document",
		"document":{"caption":"Lucky Shrub Invoice","filename":"lucky-shrub-invoice.pdf","mime_type":"application/pdf",
		"sha256":"799a7b2b5d4ef4f3b4a6b1f1c2b9e1c0","id":"1003383421387257"}}`,
		want: map[string]any{"type": "document", "attachments.0.filename": "lucky-shrub-invoice.pdf", "attachments.0.status": "failed",
			"attachments.0.provider_media_id": "1003383421387257", "attachments.0.mime_type": "application/pdf", "attachments.0.caption": "Lucky Shrub Invoice"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/sticker/",
		id: "wamid.STICKER", item: `{"from":"15551234567","id":"wamid.STICKER","timestamp":"1749416389","type":"sticker",
		"sticker":{"mime_type":"image/webp","sha256":"Q0FmIHN0aWNrZXI=","id":"1003383421387258","animated":false}}`,
		want: map[string]any{"type": "sticker", "text": nil, "attachments.0.provider_media_id": "1003383421387258", "attachments.0.mime_type": "image/webp"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/location/",
		id: "wamid.WHERE", item: `{"from":"15551234567","id":"wamid.WHERE","timestamp":"1749416390","type":"location",
		"location":{"address":"101 Forest Ave, Palo Alto, CA 94301","latitude":37.44216251868683,"longitude":-122.16153582049394,
		"name":"Philz Coffee","url":"https://philzcoffee.com"}}`,
		want: map[string]any{"type": "location", "text": nil, "location.latitude": 37.44216251868683, "location.longitude": -122.16153582049394,
			"location.name": "Philz Coffee", "location.address": "101 Forest Ave, Palo Alto, CA 94301", "location.url": "https://philzcoffee.com"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/contacts",
		id: "wamid.CARD", item: `{"from":"15551234567","id":"wamid.CARD","timestamp":"1749416391","type":"contacts","contacts":[{
		"addresses":[{"city":"Menlo Park","country":"United States","country_code":"us","state":"CA","street":"1 Hacker Way","type":"HOME","zip":"94025"}],
		"birthday":"1999-01-23","emails":[{"email":"bjohnson@example.com","type":"HOME"}],
		"name":{"formatted_name":"Barbara J. Johnson","first_name":"Barbara","last_name":"Johnson","middle_name":"Joana","suffix":"Esq.","prefix":"Dr."},
		"org":{"company":"Lucky Shrub","department":"Legal","title":"Lead Counsel"},
		"phones":[{"phone":"+1 (940) 555-1234","wa_id":"19405551234","type":"HOME"}],
		"urls":[{"url":"https://www.luckyshrub.com","type":"WORK"}]}]}`,
		want: map[string]any{"type": "contacts", "text": nil, "contacts.0.name.formatted_name": "Barbara J. Johnson", "contacts.0.name.first_name": "Barbara",
			"contacts.0.name.last_name": "Johnson", "contacts.0.name.prefix": "Dr.", "contacts.0.phones.0.phone": "+1 (940) 555-1234",
			"contacts.0.phones.0.wa_id": "19405551234", "contacts.0.phones.0.type": "HOME", "contacts.0.emails.0.email": "bjohnson@example.com",
			"contacts.0.addresses.0.street": "1 Hacker Way", "contacts.0.addresses.0.city": "Menlo Park", "contacts.0.addresses.0.zip": "94025",
			"contacts.0.addresses.0.country_code": "us", "contacts.0.org.company": "Lucky Shrub", "contacts.0.org.title": "Lead Counsel",
			"contacts.0.urls.0.url": "https://www.luckyshrub.com", "contacts.0.birthday": "1999-01-23"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/interactive/",
		id: "wamid.BUTTONREPLY", item: `{"context":{"from":"15550783881","id":"wamid.AD"},"from":"15551234567","id":"wamid.BUTTONREPLY",
		"timestamp":"1749416392","type":"interactive","interactive":{"type":"button_reply","button_reply":{"id":"cancel-button","title":"Cancel"}}}`,
		want: map[string]any{"type": "interactive", "text": "Cancel", "interactive.kind": "button_reply", "interactive.id": "cancel-button",
			"interactive.title": "Cancel", "reply_to.message_id": "$msg:wamid.AD"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/interactive/",
		id: "wamid.LISTREPLY", item: `{"from":"15551234567","id":"wamid.LISTREPLY","timestamp":"1749416393","type":"interactive",
		"interactive":{"type":"list_reply","list_reply":{"id":"priority_express","title":"Express Shipping","description":"Next Day to 2 Days"}}}`,
		want: map[string]any{"type": "interactive", "interactive.kind": "list_reply", "interactive.id": "priority_express",
			"interactive.title": "Express Shipping", "interactive.description": "Next Day to 2 Days"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/interactive/",
		id: "wamid.FLOW", item: `{"from":"15551234567","id":"wamid.FLOW","timestamp":"1749416394","type":"interactive",
		"interactive":{"type":"nfm_reply","nfm_reply":{"name":"flow","body":"Sent","response_json":"{\"flow_token\":\"AQAAAAACS5FpgQ_cAAAAAD0QI3s.\",\"optional_param1\":\"<value1>\"}"}}}`,
		want: map[string]any{"type": "interactive", "interactive.kind": "flow_reply", "interactive.name": "flow", "interactive.title": "Sent",
			"interactive.response": `{"flow_token":"AQAAAAACS5FpgQ_cAAAAAD0QI3s.","optional_param1":"<value1>"}`}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/button/",
		id: "wamid.QUICK", item: `{"context":{"from":"15550783881","id":"wamid.TEMPLATE"},"from":"15551234567","id":"wamid.QUICK",
		"timestamp":"1749416395","type":"button","button":{"payload":"Unsubscribe from Promos","text":"Unsubscribe from Promos"}}`,
		want: map[string]any{"type": "interactive", "interactive.kind": "button", "interactive.payload": "Unsubscribe from Promos",
			"interactive.title": "Unsubscribe from Promos", "reply_to.provider_message_id": "wamid.TEMPLATE"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/reaction/",
		id: "wamid.REACT", item: `{"from":"15551234567","id":"wamid.REACT","timestamp":"1749416396","type":"reaction",
		"reaction":{"message_id":"wamid.AD","emoji":"\ud83d\ude00"}}`,
		want: map[string]any{"type": "reaction", "text": nil, "reaction.emoji": "😀", "reaction.provider_message_id": "wamid.AD",
			"reaction.message_id": "$msg:wamid.AD"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/reaction/",
		id: "wamid.UNREACT", item: `{"from":"15551234567","id":"wamid.UNREACT","timestamp":"1749416397","type":"reaction",
		"reaction":{"message_id":"wamid.AD","emoji":""}}`,
		want: map[string]any{"type": "reaction", "text": nil, "reaction.emoji": "", "reaction.message_id": "$msg:wamid.AD"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/order/",
		id: "wamid.ORDER", item: `{"from":"15551234567","id":"wamid.ORDER","timestamp":"1749416398","type":"order",
		"order":{"catalog_id":"194836987003835","text":"Please deliver before noon","product_items":[
		 {"product_retailer_id":"di9ozbzfi4","quantity":2,"item_price":30,"currency":"USD"},
		 {"product_retailer_id":"nqryix03ez","quantity":1,"item_price":25.5,"currency":"USD"}]}}`,
		want: map[string]any{"type": "order", "text": "Please deliver before noon", "order.catalog_id": "194836987003835",
			"order.items.0.product_id": "di9ozbzfi4", "order.items.0.quantity": float64(2), "order.items.0.price": float64(30),
			"order.items.0.currency": "USD", "order.items.1.product_id": "nqryix03ez", "order.items.1.price": 25.5}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/unsupported",
		id: "wamid.ODD", item: `{"from":"15551234567","id":"wamid.ODD","timestamp":"1749416399","type":"unsupported",
		"errors":[{"code":131051,"title":"Message type unknown","message":"Message type unknown",
		"error_data":{"details":"Message type is currently not supported."}}],"unsupported":{"type":"edit"}}`,
		want: map[string]any{"type": "unsupported", "text": nil, "unsupported.code": "131051", "unsupported.title": "Message type unknown",
			"unsupported.details": "Message type is currently not supported."}},
	{source: "https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/request_welcome/",
		id: "wamid.WELCOME", item: `{"from":"15551234567","id":"wamid.WELCOME","timestamp":"1749416400","type":"request_welcome"}`,
		want: map[string]any{"type": "system", "system.kind": "request_welcome", "text": nil}},
	{source: "(a type Meta may add: msgsvc keeps it visible)",
		id: "wamid.NEWKIND", item: `{"from":"15551234567","id":"wamid.NEWKIND","timestamp":"1749416401","type":"poll","poll":{"question":"?"}}`,
		want: map[string]any{"type": "unsupported", "unsupported.code": "not_modelled", "unsupported.title": `WhatsApp message type "poll"`}},
}

func TestWhatsAppRichInbound(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	items := []any{}
	for _, c := range waRichCases {
		items = append(items, json.RawMessage(c.item))
	}
	value := waValue("messages", items...)
	// A value's own errors[] are logged, and do not stop its messages.
	value["errors"] = []any{map[string]any{"code": 130429, "title": "Rate limit hit", "message": "(#130429) Rate limit hit",
		"error_data": map[string]any{"details": "Cloud API message throughput has been reached."}}}
	h.deliver(waChange("messages", value))
	if n := h.count(`SELECT count(*) FROM provider_hooks WHERE last_error <> ''`); n != 0 {
		t.Fatalf("%d hooks failed", n)
	}
	received := receivedEvents(h.API)
	for _, c := range waRichCases {
		got := h.messageOf(c.id)
		checkRich(t, c, got, func(wamid string) string { return h.messageOf(wamid)["id"].(string) })
		// Every event carries the same typed fields.
		checkRich(t, c, received[got["id"].(string)], func(wamid string) string { return h.messageOf(wamid)["id"].(string) })
	}

	// GraphQL shows the same fields.
	query, _ := json.Marshal(map[string]any{"query": `{ message(id: "` + h.messageOf("wamid.REACT")["id"].(string) + `") {
		providerMessageId type reaction { emoji messageId providerMessageId } }
		where: message(id: "` + h.messageOf("wamid.WHERE")["id"].(string) + `") { location { latitude name } forwarded replyTo { messageId } } }`})
	req, _ := http.NewRequest("POST", h.HTTP.URL+"/graphql", bytes.NewReader(query))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Msgsvc-Workspace", "ws_main")
	req.Header.Set("Msgsvc-Livemode", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var gq map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&gq)
	resp.Body.Close()
	if lookup(gq, "data.message.reaction.emoji") != "😀" || lookup(gq, "data.message.reaction.messageId") != h.messageOf("wamid.AD")["id"] ||
		lookup(gq, "data.message.providerMessageId") != "wamid.REACT" || lookup(gq, "data.where.location.name") != "Philz Coffee" ||
		lookup(gq, "data.where.forwarded") != false {
		t.Fatalf("GraphQL: %v", gq)
	}

	// The failed image is fetched again once Meta has it.
	image := h.messageOf("wamid.IMAGE")
	att := image["attachments"].([]any)[0].(map[string]any)
	photo := []byte("\xff\xd8\xff\xe0 stand-in jpeg")
	h.graph.AddMedia("1003383421387256", photo, "image/jpeg", hookToken, "")
	again := h.Want(h.Do("POST", "/v1/files/"+att["id"].(string)+"/refetch", "live_all", nil), 200, "").Data()
	if again["status"] != "stored" || again["size"] != float64(len(photo)) || again["provider_media_id"] != "1003383421387256" || again["error"] != nil {
		t.Fatalf("refetched %v", again)
	}
	var stored []byte
	if err := h.Store.DB.Get(&stored, `SELECT content FROM files WHERE id = $1`, att["id"]); err != nil || string(stored) != string(photo) {
		t.Fatalf("stored %q, %v", stored, err)
	}
	if a := h.messageOf("wamid.IMAGE")["attachments"].([]any)[0].(map[string]any); a["status"] != "stored" || a["size"] != float64(len(photo)) {
		t.Fatalf("the message's attachment after refetch: %v", a)
	}
	// One still missing answers 503 and stays failed; a file that is no
	// provider media is refused; another workspace's key sees no file.
	doc := h.messageOf("wamid.DOC")["attachments"].([]any)[0].(map[string]any)
	h.Want(h.Do("POST", "/v1/files/"+doc["id"].(string)+"/refetch", "live_all", nil), 503, "channel_unavailable")
	if a := h.messageOf("wamid.DOC")["attachments"].([]any)[0].(map[string]any); a["status"] != "failed" || a["error"] == "" {
		t.Fatalf("still missing: %v", a)
	}
	h.Want(h.Do("POST", "/v1/files/file_nope/refetch", "live_all", nil), 400, "file_not_found")

	// The customer changes number: the contact moves, with its history.
	var contactID string
	if err := h.Store.DB.Get(&contactID, `SELECT id FROM contacts WHERE phone = '+15551234567' AND livemode`); err != nil {
		t.Fatal(err)
	}
	// https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/system/
	// (system messages carry no contacts array)
	changed := waValue("messages", json.RawMessage(`{"from":"15551234567","id":"wamid.CHANGED","timestamp":"1749416500","type":"system",
		"system":{"body":"User Sheena Nelson changed from 15551234567 to 15557654321","wa_id":"15557654321","type":"user_changed_number"}}`))
	delete(changed, "contacts")
	h.deliver(waChange("messages", changed))
	sys := h.messageOf("wamid.CHANGED")
	if sys["type"] != "system" || lookup(sys, "system.kind") != "user_changed_number" || lookup(sys, "system.new_wa_id") != "15557654321" {
		t.Fatalf("system message %v", sys)
	}
	var phone string
	if err := h.Store.DB.Get(&phone, `SELECT phone FROM contacts WHERE id = $1`, contactID); err != nil || phone != "+15557654321" {
		t.Fatalf("contact phone %q, %v", phone, err)
	}
	// The next message from the new number joins the same conversation.
	next := waValue("messages", json.RawMessage(`{"from":"15557654321","id":"wamid.NEWNUMBER","timestamp":"1749416501","type":"text","text":{"body":"new phone"}}`))
	next["contacts"] = []any{map[string]any{"profile": map[string]any{"name": "Ana"}, "wa_id": "15557654321"}}
	h.deliver(waChange("messages", next))
	if a, b := h.messageOf("wamid.NEWNUMBER")["conversation_id"], sys["conversation_id"]; a != b {
		t.Fatalf("the new number's message went to %v, not %v", a, b)
	}
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND phone IN ('+15551234567', '+15557654321')`); n != 1 {
		t.Fatalf("%d contacts for the old and new number", n)
	}
	updated := false
	for _, e := range h.Events("ws_main") {
		data, _ := e.Envelope["data"].(map[string]any)
		if e.Type == "contact.updated" && data["id"] == contactID && data["phone"] == "+15557654321" {
			updated = true
		}
	}
	if !updated {
		t.Fatal("no contact.updated for the new number")
	}
}

// receivedEvents are the data of the message.received events by message id.
func receivedEvents(api *resttest.API) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range api.Events("ws_main") {
		if data, _ := e.Envelope["data"].(map[string]any); e.Type == "message.received" && data != nil {
			out[data["id"].(string)] = data
		}
	}
	return out
}

// checkRich compares each wanted path of a case with the message.
func checkRich(t *testing.T, c richCase, got map[string]any, ours func(string) string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no message (%s)", c.id, c.source)
		return
	}
	for path, want := range c.want {
		if s, ok := want.(string); ok && strings.HasPrefix(s, "$msg:") {
			want = ours(strings.TrimPrefix(s, "$msg:"))
		}
		if v := lookup(got, path); !reflect.DeepEqual(v, want) {
			t.Errorf("%s %s = %#v, want %#v (%s)", c.id, path, v, want, c.source)
		}
	}
}

// lookup reads a dotted path ("a.0.b") of decoded JSON; nil when absent.
func lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// igRichCases are messaging[] items of Instagram's webhooks, shaped as
// the reference page in source shows them; id is the Meta id (mid, or a
// comment id) or, for events without one, the prefix of the key msgsvc
// stores them under.
var igRichCases = []richCase{
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/",
		id: "mid.first", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000000000,
		"message":{"mid":"mid.first","text":"Is this still available?"}}`,
		want: map[string]any{"type": "text", "text": "Is this still available?", "provider_message_id": "mid.first", "reply_to": nil}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (reply_to)",
		id: "mid.reply", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000001000,
		"message":{"mid":"mid.reply","text":"about this","reply_to":{"mid":"mid.first"}}}`,
		want: map[string]any{"type": "text", "reply_to.provider_message_id": "mid.first", "reply_to.message_id": "$msg:mid.first"}},
	{source: "https://developers.facebook.com/documentation/instagram-platform/instagram-api-with-instagram-login/messaging-api/quick-replies",
		id: "mid.quick", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000002000,
		"message":{"mid":"mid.quick","text":"Red","quick_reply":{"payload":"COLOR_RED"}}}`,
		want: map[string]any{"type": "interactive", "text": "Red", "interactive.kind": "quick_reply", "interactive.payload": "COLOR_RED", "interactive.title": "Red"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (referral, ad)",
		id: "mid.ad", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000003000,
		"message":{"mid":"mid.ad","text":"Hi from the ad","referral":{"ref":"summer-sale","ad_id":"6761520733433","source":"ADS","type":"OPEN_THREAD",
		"ads_context_data":{"ad_title":"Summer sale","photo_url":"https://scontent.cdninstagram.com/ad.jpg","video_url":"https://scontent.cdninstagram.com/ad.mp4"}}}}`,
		want: map[string]any{"referral.ref": "summer-sale", "referral.ad_id": "6761520733433", "referral.source_id": "6761520733433",
			"referral.source_type": "ADS", "referral.ad_title": "Summer sale", "referral.image_url": "https://scontent.cdninstagram.com/ad.jpg",
			"referral.video_url": "https://scontent.cdninstagram.com/ad.mp4"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (story reply)",
		id: "mid.storyreply", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000004000,
		"message":{"mid":"mid.storyreply","text":"Love it","reply_to":{"story":{"url":"https://lookaside.fbsbx.com/story.jpg","id":"17920000000000000"}}}}`,
		want: map[string]any{"type": "story", "text": "Love it", "story.kind": "reply", "story.id": "17920000000000000", "story.url": "https://lookaside.fbsbx.com/story.jpg"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (story_mention)",
		id: "mid.mention", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000005000,
		"message":{"mid":"mid.mention","attachments":[{"type":"story_mention","payload":{"url":"https://lookaside.fbsbx.com/mention.jpg"}}]}}`,
		want: map[string]any{"type": "story", "text": nil, "story.kind": "mention", "story.url": "https://lookaside.fbsbx.com/mention.jpg"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (share)",
		id: "mid.share", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000006000,
		"message":{"mid":"mid.share","attachments":[{"type":"share","payload":{"url":"https://www.instagram.com/p/C1a2b3c4/"}}]}}`,
		want: map[string]any{"type": "share", "text": nil, "share.url": "https://www.instagram.com/p/C1a2b3c4/"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (ig_reel)",
		id: "mid.reel", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000007000,
		"message":{"mid":"mid.reel","attachments":[{"type":"ig_reel","payload":{"url":"https://lookaside.fbsbx.com/reel.mp4","title":"Our new shop","reel_video_id":"18000000000000001"}}]}}`,
		want: map[string]any{"type": "share", "share.url": "https://lookaside.fbsbx.com/reel.mp4", "share.title": "Our new shop", "share.id": "18000000000000001"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (is_unsupported)",
		id: "mid.unsupported", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000008000,
		"message":{"mid":"mid.unsupported","is_unsupported":true}}`,
		want: map[string]any{"type": "unsupported", "text": nil, "unsupported.title": "a message Instagram does not pass on"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (message_reactions)",
		id: "reaction:react:mid.first", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000009000,
		"reaction":{"mid":"mid.first","action":"react","reaction":"love","emoji":"❤️"}}`,
		want: map[string]any{"type": "reaction", "text": nil, "reaction.emoji": "❤️", "reaction.provider_message_id": "mid.first",
			"reaction.message_id": "$msg:mid.first"}},
	{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (message_reactions, unreact)",
		id: "reaction:unreact:mid.first", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000010000,
		"reaction":{"mid":"mid.first","action":"unreact"}}`,
		want: map[string]any{"type": "reaction", "text": nil, "reaction.emoji": "", "reaction.message_id": "$msg:mid.first"}},
	{source: "https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_postbacks (an ice breaker of a new customer)",
		id: "mid.postback", item: `{"sender":{"id":"IGSID-NEW"},"recipient":{"id":"17841405822304914"},"timestamp":1760000011000,
		"postback":{"mid":"mid.postback","title":"What are your hours?","payload":"HOURS"}}`,
		want: map[string]any{"type": "interactive", "text": "What are your hours?", "interactive.kind": "postback",
			"interactive.payload": "HOURS", "provider_message_id": "mid.postback"}},
	{source: "https://developers.facebook.com/docs/messenger-platform/instagram/features/webhook/ (messaging_referral)",
		id: "referral:IGSID-5551234", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000012000,
		"referral":{"ref":"bio-link","source":"SHORTLINK","type":"OPEN_THREAD"}}`,
		want: map[string]any{"type": "system", "system.kind": "referral", "referral.ref": "bio-link", "referral.source_type": "SHORTLINK"}},
	{source: "(a messaging event of a kind msgsvc does not model: kept visible)",
		id: "optin:IGSID-5551234", item: `{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000013000,
		"optin":{"type":"notification_messages","payload":"X"}}`,
		want: map[string]any{"type": "unsupported", "unsupported.code": "not_modelled", "unsupported.title": `Instagram messaging event "optin"`}},
}

func TestInstagramRichInbound(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	items := []any{}
	for _, c := range igRichCases {
		items = append(items, json.RawMessage(c.item))
	}
	// https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (a comment on an ad)
	comment := map[string]any{"field": "comments", "value": map[string]any{"id": "17865799348089039", "text": "How much?",
		"parent_id": "17865799348080000", "from": map[string]any{"id": "IGSID-5551234", "username": "ana"},
		"media": map[string]any{"id": "17887498072083520", "media_product_type": "FEED", "ad_id": "6761520733433", "ad_title": "Summer sale"}}}
	h.deliver(map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": igUser, "time": 1760000000,
		"messaging": items, "changes": []any{comment}}}})
	// standby: a thread another app controls; the message is kept all the same.
	h.deliver(map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": igUser, "time": 1760000020,
		"standby": []any{json.RawMessage(`{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000020000,
		"message":{"mid":"mid.standby","text":"while another app answers"}}`)}}}})
	if n := h.count(`SELECT count(*) FROM provider_hooks WHERE last_error <> ''`); n != 0 {
		t.Fatalf("%d hooks failed", n)
	}
	received := receivedEvents(h.API)
	for _, c := range append(igRichCases, richCase{id: "mid.standby", want: map[string]any{"text": "while another app answers"}},
		richCase{source: "https://developers.facebook.com/docs/instagram-platform/webhooks/examples/", id: "17865799348089039",
			want: map[string]any{"type": "comment", "text": "How much?", "comment.id": "17865799348089039", "comment.media_id": "17887498072083520",
				"comment.parent_id": "17865799348080000", "comment.ad_id": "6761520733433", "comment.ad_title": "Summer sale"}}) {
		id := h.igMessage(c.id)
		got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
		checkRich(t, c, got, h.igMessage)
		checkRich(t, c, received[id], h.igMessage)
	}
	// The postback of a new customer started their conversation.
	pb := h.Want(h.Do("GET", "/v1/messages/"+h.igMessage("mid.postback"), "live_all", nil), 200, "").Data()
	first := h.Want(h.Do("GET", "/v1/messages/"+h.igMessage("mid.first"), "live_all", nil), 200, "").Data()
	if pb["conversation_id"] == first["conversation_id"] || pb["direction"] != "inbound" {
		t.Fatalf("postback %v", pb)
	}

	// An edit changes the text of the message it names, with message.status.
	// https://developers.facebook.com/docs/instagram-platform/webhooks/examples/ (message_edit)
	h.deliver(map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": igUser, "time": 1760000030,
		"messaging": []any{json.RawMessage(`{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000030000,
		"message_edit":{"mid":"mid.first","text":"Is this still available in red?","num_edit":1}}`)}}}})
	if got := h.Want(h.Do("GET", "/v1/messages/"+first["id"].(string), "live_all", nil), 200, "").Data(); got["text"] != "Is this still available in red?" {
		t.Fatalf("edited %v", got["text"])
	}
	if st := h.eventsOf("message.status", "Is this still available in red?"); len(st) != 1 {
		t.Fatalf("%d message.status for the edit", len(st))
	}

	// A read marks the account's message read.
	h.deliver(igDM(igUser, igUser, igCustomer, "mid.app", time.UnixMilli(1760000031000), map[string]any{"text": "sent from the app", "is_echo": true}))
	h.deliver(map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": igUser, "time": 1760000032,
		"messaging": []any{json.RawMessage(`{"sender":{"id":"IGSID-5551234"},"recipient":{"id":"17841405822304914"},"timestamp":1760000032000,
		"read":{"mid":"mid.app"}}`)}}}})
	if got := h.Want(h.Do("GET", "/v1/messages/"+h.igMessage("mid.app"), "live_all", nil), 200, "").Data(); got["status"] != "read" ||
		lookup(got, "delivery.read_at") == nil || got["provider_message_id"] != "mid.app" {
		t.Fatalf("read %v", got)
	}
}

// igMessage is the id of the message stored under a Meta id, or under the
// one key that starts with it.
func (h *igHooks) igMessage(key string) string {
	h.T.Helper()
	var ids []string
	if err := h.Store.DB.Select(&ids, `SELECT message_id FROM provider_messages WHERE provider_id = $1 OR provider_id LIKE $2
		UNION SELECT message_id FROM instagram_comments WHERE comment_id = $1`, key, key+":%"); err != nil || len(ids) != 1 {
		h.T.Fatalf("messages under %s: %v %v", key, ids, err)
	}
	return ids[0]
}

// count runs a counting query.
func (h *igHooks) count(query string, args ...any) int {
	h.T.Helper()
	var n int
	if err := h.Store.DB.Get(&n, query, args...); err != nil {
		h.T.Fatal(err)
	}
	return n
}
