package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// HUMAN_AGENT: a person's Instagram reply (tag "human_agent" on the API,
// or an agent's reply) between 24 hours and 7 days after the customer's
// last message goes out with messaging_type MESSAGE_TAG and tag
// HUMAN_AGENT; an automated one only within 24 hours; after 7 days none.
// https://developers.facebook.com/docs/messenger-platform/send-messages/message-tags (HUMAN_AGENT, 7 days)
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/
func TestInstagramHumanAgentTag(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.ha-1", h.Clock.Now(), map[string]any{"text": "any news?"}))
	conv := h.one("message.received", "any news?")["conversation_id"].(string)
	send := func(body map[string]any) map[string]any {
		body["conversation_id"] = conv
		return body
	}
	sends := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	}

	// Within 24 hours: no tag, tagged or not.
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"text": "within a day", "tag": "human_agent"})), 201, "")
	metatest.SameJSON(t, sends()[0].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"message":{"text":"within a day"}}`)

	h.Clock.Advance(3 * 24 * time.Hour)
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"text": "automated"})), 422, "window_closed")
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"text": "x", "tag": "bot"})), 400, "invalid_request")
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"text": "Alice here, sorry for the wait", "tag": "human_agent"})), 201, "")
	got := sends()
	if len(got) != 2 {
		t.Fatalf("%d sends", len(got))
	}
	metatest.SameJSON(t, got[1].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"messaging_type":"MESSAGE_TAG","tag":"HUMAN_AGENT",
		"message":{"text":"Alice here, sorry for the wait"}}`)
	// An agent's reply is a person's.
	if code := liveAgentReply(t, h, conv, "from the inbox"); code != "" {
		t.Fatal(code)
	}
	got = sends()
	if len(got) != 3 || got[2].JSON()["tag"] != "HUMAN_AGENT" || got[2].JSON()["messaging_type"] != "MESSAGE_TAG" {
		t.Fatalf("agent reply %s", got[len(got)-1].Body)
	}

	h.Clock.Advance(4*24*time.Hour + time.Minute)
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"text": "a week on", "tag": "human_agent"})), 422, "window_closed")
	if code := liveAgentReply(t, h, conv, "too late"); code != "window_closed" {
		t.Fatalf("an agent's reply after 7 days: %q", code)
	}
	if n := len(sends()); n != 3 {
		t.Fatalf("%d sends after 7 days", n)
	}
	// tag is for Instagram direct messages only.
	h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": "+15550002222", "whatsapp_account_id": "wa_main", "text": "x", "tag": "human_agent"}), 400, "invalid_request")
}

// liveAgentReply is usr_alice's agentReply on a live conversation; it
// returns the error code ("" for none).
func liveAgentReply(t *testing.T, h *igHooks, conv, text string) string {
	t.Helper()
	_, out := graphqlMode(t, h.API, "admin-token", "ws_main", true,
		`mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "`+text+`") { id } }`)
	return graphqlCode(out)
}
