package rest_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The card of Meta's contacts message reference
// (https://developers.facebook.com/docs/whatsapp/cloud-api/messages/contacts-messages).
const barbaraCard = `{"addresses":[{"street":"1 Lucky Shrub Way","city":"Menlo Park","state":"CA","zip":"94025",
	"country":"United States","country_code":"US","type":"WORK"}],"birthday":"1999-01-23",
	"emails":[{"email":"bjohnson@luckyshrub.com","type":"WORK"},{"email":"bjohnson@luckyshrubplants.com","type":"HOME"}],
	"name":{"formatted_name":"Barbara J. Johnson","first_name":"Barbara","last_name":"Johnson","middle_name":"Joana","suffix":"Esq.","prefix":"Dr."},
	"org":{"company":"Lucky Shrub","department":"Legal","title":"Lead Counsel"},
	"phones":[{"phone":"+16505559999","type":"HOME"},{"phone":"+19195551234","type":"WORK","wa_id":"19195551234"}],
	"urls":[{"url":"https://www.luckyshrub.com","type":"WORK"},{"url":"https://www.facebook.com/luckyshrubplants","type":"WORK"}]}`

func TestWhatsAppContactsOutbound(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(waChange("messages", waValue("messages", waMessage("wamid.IN", resttest.Epoch.Unix()-60, "text", map[string]any{"body": "Who is your lawyer?"}))))
	conv := h.messageOf("wamid.IN")["conversation_id"]
	calls := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	}
	var card map[string]any
	if err := json.Unmarshal([]byte(barbaraCard), &card); err != nil {
		t.Fatal(err)
	}
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "contacts": []any{card}}), 201, "").Data()
	c := calls()
	got := c[len(c)-1].JSON()
	if got["type"] != "contacts" || !reflect.DeepEqual(got["contacts"], []any{card}) {
		b, _ := json.Marshal(got)
		t.Fatalf("Meta got %s", b)
	}
	if sent["type"] != "contacts" || lookup(sent, "contacts.0.name.formatted_name") != "Barbara J. Johnson" ||
		lookup(sent, "contacts.0.phones.1.wa_id") != "19195551234" || sent["text"] != nil {
		t.Fatalf("stored %v", sent)
	}

	before := len(calls())
	six := []any{}
	for i := 0; i < 6; i++ {
		six = append(six, card)
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "contacts": six}), 422, "limit_exceeded")
	for _, bad := range []map[string]any{
		{"contacts": []any{map[string]any{"name": map[string]any{"formatted_name": "Only"}}}},
		{"contacts": []any{map[string]any{"name": map[string]any{"first_name": "No formatted"}}}},
		{"contacts": []any{card}, "text": "and a text"},
		{"contacts": []any{map[string]any{"name": map[string]any{"formatted_name": "B J", "first_name": "B"}, "birthday": "23/01/1999"}}},
	} {
		bad["conversation_id"] = conv
		h.Want(sendMsg(h.API, "live_all", bad), 400, "invalid_request")
	}
	if n := len(calls()); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
}

// Meta answers a send with the wa_id it knows for the number
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages,
// "contacts":[{"input","wa_id"}]); when it is not the number sent to (here
// a wa_id no local rule derives from the number), the customer's reply
// from it joins the contact and conversation of the send.
func TestWhatsAppReplyFromTheAnsweredWaID(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.Queue(metatest.Script{PathSuffix: "/messages", Status: 200, Body: map[string]any{"messaging_product": "whatsapp",
		"contacts": []any{map[string]any{"input": "447700900123", "wa_id": "447700900456"}},
		"messages": []any{map[string]any{"id": "wamid.UK1"}}}})
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": "+447700900123", "whatsapp_account_id": "wa_main",
		"template": tpl("order_update", "A-1")}), 201, "").Data()
	reply := waValue("messages", waMessage("wamid.UKIN", resttest.Epoch.Unix(), "text", map[string]any{"body": "thanks"}))
	reply["messages"].([]any)[0].(map[string]any)["from"] = "447700900456"
	reply["contacts"] = []any{map[string]any{"profile": map[string]any{"name": "Lou"}, "wa_id": "447700900456"}}
	h.deliver(waChange("messages", reply))
	if got := h.messageOf("wamid.UKIN"); got["conversation_id"] != sent["conversation_id"] {
		t.Fatalf("the reply went to %v, not the send's %v", got["conversation_id"], sent["conversation_id"])
	}
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND phone LIKE '+4477009%'`); n != 1 {
		t.Fatalf("%d contacts for the customer", n)
	}
}

// The same inputs over GraphQL: a contact card, and a template's button
// parameter checked against the template.
func TestRichInputsOverGraphQL(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	conv := api.Inbound("whatsapp", "+15550107777", "hi")["conversation"].(map[string]any)["id"].(string)
	msg := gql(t, api, `mutation { sendMessage(input: {conversationId: "`+conv+`", contacts: [{name: {formattedName: "Barbara J. Johnson",
		firstName: "Barbara"}, phones: [{phone: "+19195551234", waId: "19195551234", type: "WORK"}]}]}) { type contacts { name { formattedName } phones { waId } } } }`, "")
	sent := msg["sendMessage"].(map[string]any)
	if sent["type"] != "contacts" || lookup(sent, "contacts.0.name.formattedName") != "Barbara J. Johnson" || lookup(sent, "contacts.0.phones.0.waId") != "19195551234" {
		t.Fatalf("sent %v", sent)
	}
	gql(t, api, `mutation { sendMessage(input: {conversationId: "`+conv+`", template: {name: "order_update", language: "en_US",
		parameters: ["A-1"], buttons: [{index: 0, payload: "x"}]}}) { id } }`, "template_parameters_invalid")
}
