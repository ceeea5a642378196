package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestWhatsAppRichOutbound(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix() - 60
	h.deliver(waChange("messages", waValue("messages", waMessage("wamid.IN", at, "text", map[string]any{"body": "Can I change my order?"}))))
	in := h.messageOf("wamid.IN")
	conv := in["conversation_id"].(string)
	sends := func() int {
		return len(h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") }))
	}

	// A reply quoting the customer's message, with reply buttons.
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "Change the order?",
		"reply_to": map[string]any{"message_id": in["id"]},
		"interactive": map[string]any{"type": "buttons", "buttons": []any{map[string]any{"id": "change", "title": "Change"},
			map[string]any{"id": "cancel", "title": "Cancel"}}}}), 201, "").Data()
	reqs := h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	metatest.SameJSON(t, reqs[len(reqs)-1].JSON(), `{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567",
		"type":"interactive","context":{"message_id":"wamid.IN"},"biz_opaque_callback_data":"`+sent["id"].(string)+`",
		"interactive":{"type":"button","body":{"text":"Change the order?"},"action":{"buttons":[
		{"type":"reply","reply":{"id":"change","title":"Change"}},{"type":"reply","reply":{"id":"cancel","title":"Cancel"}}]}}}`)
	if sent["type"] != "interactive" || lookup(sent, "reply_to.message_id") != in["id"] || lookup(sent, "reply_to.provider_message_id") != "wamid.IN" ||
		lookup(sent, "interactive.kind") != "buttons" || sent["provider_message_id"] == nil {
		t.Fatalf("sent %v", sent)
	}

	// A reaction on the customer's message, and its removal.
	react := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv,
		"reaction": map[string]any{"message_id": in["id"], "emoji": "👍"}}), 201, "").Data()
	if react["type"] != "reaction" || lookup(react, "reaction.emoji") != "👍" || lookup(react, "reaction.message_id") != in["id"] || react["text"] != nil {
		t.Fatalf("reaction %v", react)
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "reaction": map[string]any{"message_id": in["id"], "emoji": ""}}), 201, "")
	reqs = h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if got := reqs[len(reqs)-1].JSON(); lookup(got, "reaction.emoji") != "" || lookup(got, "reaction.message_id") != "wamid.IN" {
		t.Fatalf("removal %v", got)
	}

	// A location.
	loc := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv,
		"location": map[string]any{"latitude": 37.4847, "longitude": -122.1486, "name": "Meta HQ"}}), 201, "").Data()
	if loc["type"] != "location" || lookup(loc, "location.name") != "Meta HQ" {
		t.Fatalf("location %v", loc)
	}

	// Every documented limit is refused before Meta is called, naming the field.
	before := sends()
	button := func(title string) map[string]any { return map[string]any{"id": title, "title": title} }
	row := func(id, title string) map[string]any { return map[string]any{"id": id, "title": title} }
	rows := []any{}
	for i := 0; i < 11; i++ {
		rows = append(rows, row("r"+strings.Repeat("x", i), "Row"))
	}
	refused := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"text": strings.Repeat("a", 4097)}, "text"},
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "buttons", "buttons": []any{button("a"), button("b"), button("c"), button("d")}}}, "interactive.buttons"},
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "buttons", "buttons": []any{button(strings.Repeat("t", 21))}}}, "interactive.buttons[0].title"},
		{map[string]any{"text": strings.Repeat("b", 1025), "interactive": map[string]any{"type": "buttons", "buttons": []any{button("a")}}}, "text"},
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "list", "button": "Options",
			"sections": []any{map[string]any{"rows": rows}}}}, "interactive.sections"},
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "list", "button": "Options",
			"sections": []any{map[string]any{"rows": []any{row("a", strings.Repeat("r", 25))}}}}}, "interactive.sections[0].rows[0].title"},
		{map[string]any{"text": "go", "interactive": map[string]any{"type": "cta_url", "url": "https://x.test", "display_text": strings.Repeat("d", 21)}}, "interactive.display_text"},
		{map[string]any{"location": map[string]any{"latitude": 91, "longitude": 0}}, "location.latitude"},
	}
	for _, c := range refused {
		c.body["conversation_id"] = conv
		resp := h.Want(sendMsg(h.API, "live_all", c.body), 422, "limit_exceeded")
		if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, c.field+":") {
			t.Errorf("%s: message %q does not name the field", c.field, msg)
		}
	}
	if n := sends(); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
	// reply_to naming a message of another conversation is not found.
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "x", "reply_to": map[string]any{"message_id": "msg_nope"}}), 404, "message_not_found")
}

func TestInstagramRichOutbound(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.in", h.Clock.Now().Add(-time.Minute), map[string]any{"text": "Which colour?"}))
	in := h.one("message.received", "Which colour?")
	conv := in["conversation_id"].(string)
	calls := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+igUser+"/messages" })
	}
	// Quick replies quoting the customer's message.
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "Pick one", "reply_to": map[string]any{"message_id": in["id"]},
		"interactive": map[string]any{"type": "quick_replies", "quick_replies": []any{map[string]any{"title": "Red", "payload": "RED"},
			map[string]any{"title": "Blue", "payload": "BLUE"}}}}), 201, "")
	c := calls()
	metatest.SameJSON(t, c[len(c)-1].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"reply_to":{"mid":"mid.in"},"message":{"text":"Pick one",
		"quick_replies":[{"content_type":"text","title":"Red","payload":"RED"},{"content_type":"text","title":"Blue","payload":"BLUE"}]}}`)
	// A heart on the customer's message.
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "reaction": map[string]any{"message_id": in["id"], "emoji": "❤️"}}), 201, "")
	c = calls()
	metatest.SameJSON(t, c[len(c)-1].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"sender_action":"react","payload":{"message_id":"mid.in","reaction":"love"}}`)

	before := len(calls())
	many := []any{}
	for i := 0; i < 14; i++ {
		many = append(many, map[string]any{"title": "Q", "payload": "P"})
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"text": strings.Repeat("é", 501)}, "text"}, // 1002 bytes
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "quick_replies", "quick_replies": many}}, "interactive.quick_replies"},
		{map[string]any{"text": "pick", "interactive": map[string]any{"type": "quick_replies", "quick_replies": []any{map[string]any{"title": strings.Repeat("q", 21), "payload": "P"}}}}, "interactive.quick_replies[0].title"},
		{map[string]any{"reaction": map[string]any{"message_id": in["id"], "emoji": "👍"}}, "reaction.emoji"},
	} {
		c.body["conversation_id"] = conv
		resp := h.Want(sendMsg(h.API, "live_all", c.body), 422, "limit_exceeded")
		if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, c.field+":") {
			t.Errorf("%s: message %q does not name the field", c.field, msg)
		}
	}
	if n := len(calls()); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
}

// Meta answers a send to a Brazilian mobile number with the wa_id it
// knows, without the ninth digit; the customer's reply comes from that
// wa_id and joins the conversation the send started.
func TestWhatsAppReplyFromAnotherFormOfTheNumber(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": "+5511987654321", "whatsapp_account_id": "wa_main",
		"template": tpl("order_update", "A-1")}), 201, "").Data()
	reply := waValue("messages", waMessage("wamid.BR", resttest.Epoch.Unix(), "text", map[string]any{"body": "obrigado"}))
	reply["messages"].([]any)[0].(map[string]any)["from"] = "551187654321"
	reply["contacts"] = []any{map[string]any{"profile": map[string]any{"name": "Joana"}, "wa_id": "551187654321"}}
	h.deliver(waChange("messages", reply))
	if got := h.messageOf("wamid.BR"); got["conversation_id"] != sent["conversation_id"] {
		t.Fatalf("the reply went to %v, not the send's %v", got["conversation_id"], sent["conversation_id"])
	}
	if n := h.count(`SELECT count(*) FROM contacts WHERE livemode AND phone LIKE '+5511%'`); n != 1 {
		t.Fatalf("%d contacts for the customer", n)
	}
}
