package rest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// An Instagram generic template reaches the Send API in the shape of
// Meta's example
// (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/generic-template);
// its limits are refused before any call.
func TestInstagramGenericTemplate(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.in", h.Clock.Now().Add(-time.Minute), map[string]any{"text": "Hats?"}))
	conv := h.one("message.received", "Hats?")["conversation_id"]
	calls := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+igUser+"/messages" })
	}
	card := func() map[string]any {
		return map[string]any{"title": "Welcome!", "image_url": "https://github.com/fbsamples/original-coast-clothing/blob/main/public/looks/male-work.jpg",
			"subtitle": "We have the right hat for everyone.", "url": "https://www.originalcoastclothing.com",
			"buttons": []any{map[string]any{"type": "web_url", "url": "https://www.originalcoastclothing.com", "title": "View Website"},
				map[string]any{"type": "postback", "title": "Start Chatting", "payload": "DEVELOPER_DEFINED_PAYLOAD"}}}
	}
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv,
		"interactive": map[string]any{"type": "generic", "elements": []any{card()}}}), 201, "").Data()
	c := calls()
	metatest.SameJSON(t, c[len(c)-1].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"message":{"attachment":{"type":"template","payload":{
		"template_type":"generic","elements":[{"title":"Welcome!","image_url":"https://github.com/fbsamples/original-coast-clothing/blob/main/public/looks/male-work.jpg",
		"subtitle":"We have the right hat for everyone.","default_action":{"type":"web_url","url":"https://www.originalcoastclothing.com"},
		"buttons":[{"type":"web_url","url":"https://www.originalcoastclothing.com","title":"View Website"},
		{"type":"postback","title":"Start Chatting","payload":"DEVELOPER_DEFINED_PAYLOAD"}]}]}}}}`)
	if sent["type"] != "interactive" || lookup(sent, "interactive.kind") != "generic" || sent["provider_message_id"] == nil {
		t.Fatalf("stored %v", sent)
	}

	before := len(calls())
	with := func(f func(map[string]any)) []any { e := card(); f(e); return []any{e} }
	eleven := []any{}
	for i := 0; i < 11; i++ {
		eleven = append(eleven, card())
	}
	four := []any{}
	for i := 0; i < 4; i++ {
		four = append(four, map[string]any{"type": "postback", "title": "B", "payload": "P"})
	}
	for _, c := range []struct {
		elements []any
		field    string
	}{
		{eleven, "interactive.elements"},
		{with(func(e map[string]any) { e["title"] = strings.Repeat("t", 81) }), "interactive.elements[0].title"},
		{with(func(e map[string]any) { e["subtitle"] = strings.Repeat("s", 81) }), "interactive.elements[0].subtitle"},
		{with(func(e map[string]any) { e["buttons"] = four }), "interactive.elements[0].buttons"},
		{with(func(e map[string]any) {
			e["buttons"] = []any{map[string]any{"type": "postback", "title": strings.Repeat("b", 21), "payload": "P"}}
		}), "interactive.elements[0].buttons[0].title"},
	} {
		resp := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv,
			"interactive": map[string]any{"type": "generic", "elements": c.elements}}), 422, "limit_exceeded")
		if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, c.field+":") {
			raw, _ := json.Marshal(resp.Body)
			t.Errorf("%s: %s does not name the field", c.field, raw)
		}
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "hi",
		"interactive": map[string]any{"type": "generic", "elements": []any{card()}}}), 400, "invalid_request")
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv,
		"interactive": map[string]any{"type": "generic", "elements": []any{map[string]any{"title": "Only a title"}}}}), 400, "invalid_request")
	if n := len(calls()); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
}
