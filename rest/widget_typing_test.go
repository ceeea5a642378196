package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// liveGQL runs a GraphQL operation as the dashboard of ws_main's live data
// and returns data, failing on errors unless wantCode names the expected one.
func liveGQL(t *testing.T, api *resttest.API, query, wantCode string) map[string]any {
	t.Helper()
	r := api.Do("POST", "/graphql", "", map[string]any{"query": query},
		"Authorization", "Bearer admin-token", "Msgsvc-Workspace", "ws_main", "Msgsvc-Livemode", "true")
	errs, _ := r.Body["errors"].([]any)
	if wantCode != "" {
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), wantCode) {
			t.Fatalf("%s: want error %s, got %s", query, wantCode, r.Raw)
		}
		return nil
	}
	if r.Status != 200 || len(errs) > 0 {
		t.Fatalf("%s: %d %s", query, r.Status, r.Raw)
	}
	return r.Body["data"].(map[string]any)
}

// An agent typing on a website chat (agentTyping, through one serve
// process) is pushed to the visitor's widget connected to another one;
// only open website chats of active agents take it.
func TestWidgetAgentTypingAcrossProcesses(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	srv := secondServe(t, a)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hello?"}), 201, "").Data()
	conv := in["conversation_id"].(string)
	c := dialWidget(t, srv.URL, token)
	typing := `mutation { agentTyping(conversationId: "` + conv + `", agentId: "usr_alice") }`

	// Typing is a notice, not stored: the agent's dashboard repeats it while
	// she types, so the widget gets one once its connection is registered.
	got := make(chan pushFrame, 1)
	go func() {
		for {
			var p pushFrame
			if err := wsjson.Read(t.Context(), c, &p); err != nil {
				return
			}
			if p.Type == "typing" {
				got <- p
				return
			}
		}
	}()
	var p pushFrame
	deadline := time.After(10 * time.Second)
wait:
	for {
		if d := liveGQL(t, a, typing, ""); d["agentTyping"] != true {
			t.Fatalf("agentTyping answered %v, want true", d)
		}
		select {
		case p = <-got:
			break wait
		case <-deadline:
			t.Fatal("no typing frame reached the widget on the other process")
		case <-time.After(200 * time.Millisecond):
		}
	}
	if p.ConversationID != conv || p.Message != nil {
		t.Errorf("typing frame %+v", p)
	}

	liveGQL(t, a, `mutation { agentTyping(conversationId: "`+conv+`", agentId: "usr_bob") }`, "agent_not_found")
	liveGQL(t, a, `mutation { agentTyping(conversationId: "conv_live", agentId: "usr_alice") }`, "invalid_request")
	liveGQL(t, a, `mutation { agentTyping(conversationId: "conv_nope", agentId: "usr_alice") }`, "conversation_not_found")
	a.Want(a.Do("PATCH", "/v1/conversations/"+conv, "live_all", map[string]any{"status": "closed"}), 200, "")
	liveGQL(t, a, typing, "conversation_closed")

	// A sandbox website chat has no widget: nothing to tell.
	sandbox := a.Inbound("website", "visitor-7", "sandbox hello")
	d := gql(t, a, `mutation { agentTyping(conversationId: "`+sandbox["conversation"].(map[string]any)["id"].(string)+`", agentId: "usr_alice") }`, "")
	if d["agentTyping"] != false {
		t.Errorf("agentTyping on a sandbox chat: %v, want false", d)
	}
}

// A visitor typing in the widget, connected to one serve process, reaches
// the visitorTyping subscription of a dashboard on another, with the chat
// it types in; a sandbox dashboard hears nothing of live visitors.
func TestWidgetVisitorTypingReachesTheDashboard(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	srv := secondServe(t, a)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "one question"}), 201, "").Data()
	conv := in["conversation_id"].(string)

	notices := func(live string) <-chan map[string]any {
		c, ack := dialGraphQL(t, a, map[string]any{"Authorization": "Bearer admin-token", "Msgsvc-Workspace": "ws_main", "Msgsvc-Livemode": live})
		if ack.Type != "connection_ack" {
			t.Fatalf("connection_init answered %+v", ack)
		}
		sub, _ := json.Marshal(map[string]any{"query": `subscription { visitorTyping(conversationId: "` + conv + `") { conversationId contactId websiteId at } }`})
		if err := wsjson.Write(t.Context(), c, wsMessage{ID: "1", Type: "subscribe", Payload: sub}); err != nil {
			t.Fatal(err)
		}
		out := make(chan map[string]any, 16)
		go func() {
			for {
				var m wsMessage
				if err := wsjson.Read(context.Background(), c, &m); err != nil {
					return
				}
				var p struct {
					Data struct {
						VisitorTyping map[string]any `json:"visitorTyping"`
					} `json:"data"`
				}
				if m.Type == "next" && json.Unmarshal(m.Payload, &p) == nil {
					out <- p.Data.VisitorTyping
				}
			}
		}()
		return out
	}
	live, sandbox := notices("true"), notices("false")
	w := dialWidget(t, srv.URL, token)

	// The widget passes on one notice every 2 s: type until one arrives (the
	// subscription starts when the server takes it).
	var got map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for got == nil && time.Now().Before(deadline) {
		if err := wsjson.Write(t.Context(), w, map[string]string{"type": "typing"}); err != nil {
			t.Fatal(err)
		}
		select {
		case got = <-live:
		case <-time.After(2100 * time.Millisecond):
		}
	}
	if got == nil {
		t.Fatal("no visitorTyping notice reached the dashboard")
	}
	if got["conversationId"] != conv || got["websiteId"] != "web_main" || got["contactId"] == "" || got["at"] == nil {
		t.Errorf("notice %v", got)
	}
	select {
	case n := <-sandbox:
		t.Errorf("the sandbox dashboard heard a live visitor: %v", n)
	default:
	}
}

// The widget's receipts move a reply's status forward only: delivered when
// pushed, read on the visitor's receipt; a repeated read, a read of the
// visitor's own message or of another visitor's reply, and a reconnect
// change nothing and record no message.status.
func TestWidgetReceiptsMoveForwardOnly(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "status?"}), 201, "").Data()
	conv := in["conversation_id"].(string)
	other := session(a, nil)["visitor_token"].(string)
	otherIn := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, other, map[string]any{"text": "me too"}), 201, "").Data()
	otherReply := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": otherIn["conversation_id"], "text": "for the other"}), 201, "").Data()
	reply := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": conv, "text": "shipped"}), 201, "").Data()
	id := reply["id"].(string)

	statusEvents := func(id string) int {
		var n int
		if err := a.Store.DB.Get(&n, `SELECT count(*) FROM events WHERE type = 'message.status' AND envelope->'data'->>'id' = $1`, id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	c := dialWidget(t, a.HTTP.URL, token)
	next(t, c, "the reply", func(p pushFrame) bool { return p.Type == "message" && p.Message.ID == id })
	waitWidgetStatus(a, id, "delivered")
	for _, m := range []string{id, in["id"].(string), otherReply["id"].(string), "msg_nope", id} {
		if err := wsjson.Write(t.Context(), c, map[string]string{"type": "read", "message_id": m}); err != nil {
			t.Fatal(err)
		}
	}
	read := waitWidgetStatus(a, id, "read")
	d := read["delivery"].(map[string]any)
	if d["read_at"] == nil || d["delivered_at"] == nil {
		t.Errorf("read delivery %v", d)
	}
	// Reconnecting pushes nothing already received, and nothing moves back.
	c.CloseNow()
	c2 := dialWidget(t, a.HTTP.URL, token)
	a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": conv, "text": "marker"}), 201, "")
	p := next(t, c2, "the marker", func(p pushFrame) bool { return p.Type == "message" })
	if p.Message.ID == id {
		t.Errorf("the read reply was pushed again on reconnect")
	}
	if got := a.Want(a.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data(); got["status"] != "read" {
		t.Errorf("after a reconnect the read reply is %v", got["status"])
	}
	if n := statusEvents(id); n != 2 {
		t.Errorf("%d message.status events for the reply, want 2 (delivered, read)", n)
	}
	if got := a.Want(a.Do("GET", "/v1/messages/"+otherReply["id"].(string), "live_all", nil), 200, "").Data(); got["status"] != "sent" || statusEvents(otherReply["id"].(string)) != 0 {
		t.Errorf("another visitor's reply moved: %v", got["status"])
	}
}
