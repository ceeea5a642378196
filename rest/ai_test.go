package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// gql runs a GraphQL operation as the dashboard of ws_main's sandbox and
// returns data, failing on errors unless wantCode names the expected one.
func gql(t *testing.T, api *resttest.API, query, wantCode string) map[string]any {
	t.Helper()
	_, body := graphql(t, api, "admin-token", "ws_main", query)
	errs, _ := body["errors"].([]any)
	if wantCode != "" {
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), wantCode) {
			t.Fatalf("%s: want error %s, got %v", query, wantCode, body)
		}
		return nil
	}
	if len(errs) > 0 {
		t.Fatalf("%s: %v", query, errs)
	}
	return body["data"].(map[string]any)
}

// TestAgentsOverGraphQL: the queue, agentReply (mode human, sender agent,
// assigned to her), pausing integration replies (API sends then 409
// integration_paused), resuming, closing and handing back.
func TestAgentsOverGraphQL(t *testing.T) {
	api := resttest.New(t)
	conv := api.Inbound("website", "visitor-gql", "I need help")["conversation"].(map[string]any)["id"].(string)
	api.Want(api.Do("PATCH", "/v1/conversations/"+conv, "test_all", map[string]any{"mode": "human"}), 200, "")
	queue := gql(t, api, `{ humanQueue { id mode assignedAgentId } }`, "")["humanQueue"].([]any)
	if len(queue) != 1 || queue[0].(map[string]any)["id"] != conv {
		t.Fatalf("humanQueue = %v, want %s", queue, conv)
	}
	gql(t, api, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_bob", text: "hi") { id } }`, "agent_not_found")
	gql(t, api, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "  ") { id } }`, "text_required")
	msg := gql(t, api, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "Alice here") {
		text sender { type name } } }`, "")["agentReply"].(map[string]any)
	if msg["text"] != "Alice here" || fmt.Sprint(msg["sender"]) != "map[name:Alice type:agent]" {
		t.Errorf("agentReply = %v", msg)
	}
	c := api.Want(api.Do("GET", "/v1/conversations/"+conv, "test_all", nil), 200, "").Data()
	if c["mode"] != "human" || c["assigned_agent_id"] != "usr_alice" {
		t.Errorf("after agentReply: mode %v assigned %v", c["mode"], c["assigned_agent_id"])
	}
	gql(t, api, `mutation { pauseIntegrationReplies(id: "`+conv+`") { integrationReplies } }`, "")
	send := map[string]any{"conversation_id": conv, "text": "from the integration"}
	api.Want(api.Do("POST", "/v1/messages", "test_all", send), 409, "integration_paused")
	gql(t, api, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "still here") { id } }`, "")
	gql(t, api, `mutation { resumeIntegrationReplies(id: "`+conv+`") { integrationReplies } }`, "")
	api.Want(api.Do("POST", "/v1/messages", "test_all", send), 201, "")
	back := gql(t, api, `mutation { handBackToAI(id: "`+conv+`") { mode assignedAgentId } }`, "")["handBackToAI"].(map[string]any)
	if back["mode"] != "ai" || back["assignedAgentId"] != nil {
		t.Errorf("handBackToAI = %v", back)
	}
	closed := gql(t, api, `mutation { closeConversation(id: "`+conv+`") { status } }`, "")["closeConversation"].(map[string]any)
	if closed["status"] != "closed" {
		t.Errorf("closeConversation = %v", closed)
	}
	gql(t, api, `mutation { pauseIntegrationReplies(id: "conv_missing") { id } }`, "conversation_not_found")
}

// TestKnowledgeOverGraphQL: create, list, update, delete; bad input and
// unknown ids answer their codes; another workspace sees nothing.
func TestKnowledgeOverGraphQL(t *testing.T) {
	api := resttest.New(t)
	created := gql(t, api, `mutation { createKnowledgeEntry(input: {question: "When are you open?", answer: "9-17"}) { id question answer } }`, "")["createKnowledgeEntry"].(map[string]any)
	id := created["id"].(string)
	if !strings.HasPrefix(id, "kb_") || created["answer"] != "9-17" {
		t.Fatalf("created %v", created)
	}
	gql(t, api, `mutation { createKnowledgeEntry(input: {question: " ", answer: "x"}) { id } }`, "invalid_request")
	gql(t, api, `mutation { updateKnowledgeEntry(id: "`+id+`", input: {question: "Opening hours?", answer: "9-18"}) { id } }`, "")
	list := gql(t, api, `{ knowledgeEntries { id question answer } }`, "")["knowledgeEntries"].([]any)
	if len(list) != 1 || fmt.Sprint(list[0]) != fmt.Sprintf("map[answer:9-18 id:%s question:Opening hours?]", id) {
		t.Errorf("knowledgeEntries = %v", list)
	}
	_, other := graphql(t, api, "admin-token", "ws_free", `{ knowledgeEntries { id } }`)
	if got := fmt.Sprint(other["data"]); got != "map[knowledgeEntries:[]]" {
		t.Errorf("another workspace sees %s", got)
	}
	_, body := graphql(t, api, "admin-token", "ws_free", `mutation { deleteKnowledgeEntry(id: "`+id+`") { id } }`)
	if !strings.Contains(fmt.Sprint(body["errors"]), "knowledge_entry_not_found") {
		t.Errorf("another workspace deleted the entry: %v", body)
	}
	gql(t, api, `mutation { deleteKnowledgeEntry(id: "`+id+`") { deleted } }`, "")
	gql(t, api, `mutation { updateKnowledgeEntry(id: "`+id+`", input: {question: "q", answer: "a"}) { id } }`, "knowledge_entry_not_found")
	gql(t, api, `mutation { setAIInstructions(instructions: "Be brief.") }`, "")
	if got := gql(t, api, `{ aiInstructions }`, "")["aiInstructions"]; got != "Be brief." {
		t.Errorf("aiInstructions = %v", got)
	}
}

// wsMessage is a graphql-transport-ws message.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func dialGraphQL(t testing.TB, api *resttest.API, payload map[string]any) (*websocket.Conn, wsMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(api.HTTP.URL, "http") + "/graphql"
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	raw, _ := json.Marshal(payload)
	if err := wsjson.Write(ctx, c, wsMessage{Type: "connection_init", Payload: raw}); err != nil {
		t.Fatal(err)
	}
	var ack wsMessage
	if err := wsjson.Read(ctx, c, &ack); err != nil {
		return c, wsMessage{Type: fmt.Sprintf("closed %d: %v", websocket.CloseStatus(err), err)}
	}
	return c, ack
}

// TestConversationEventsOverWebSocket subscribes over a real WebSocket
// (graphql-transport-ws): a visitor's message and an agent's reply arrive
// as events; a connection without the admin token is refused.
func TestConversationEventsOverWebSocket(t *testing.T) {
	api := resttest.New(t)
	if _, ack := dialGraphQL(t, api, map[string]any{"Authorization": "Bearer wrong", "Msgsvc-Workspace": "ws_main"}); ack.Type == "connection_ack" {
		t.Fatal("a connection without the admin token was acknowledged")
	}
	c, ack := dialGraphQL(t, api, map[string]any{"Authorization": "Bearer admin-token", "Msgsvc-Workspace": "ws_main"})
	if ack.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v", ack)
	}
	sub, _ := json.Marshal(map[string]any{"query": `subscription { conversationEvents { type data } }`})
	if err := wsjson.Write(t.Context(), c, wsMessage{ID: "1", Type: "subscribe", Payload: sub}); err != nil {
		t.Fatal(err)
	}
	events := readEvents(t, c)
	// The subscription starts at the newest event when the server gets it:
	// write until one of ours arrives.
	var conv string
	for i := 0; conv == "" && i < 20; i++ {
		text := fmt.Sprintf("hello %d", i)
		conv = api.Inbound("website", "visitor-ws", text)["conversation"].(map[string]any)["id"].(string)
		if !waitEvent(events, time.Second, func(typ string, data map[string]any) bool {
			return typ == "message.received" && data["text"] == text
		}) {
			conv = ""
		}
	}
	if conv == "" {
		t.Fatal("no message.received arrived over the subscription")
	}
	gql(t, api, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "Alice here") { id } }`, "")
	if !waitEvent(events, 5*time.Second, func(typ string, data map[string]any) bool {
		return typ == "conversation.updated" && data["mode"] == "human"
	}) {
		t.Error("no conversation.updated (mode human) arrived")
	}
	if !waitEvent(events, 5*time.Second, func(typ string, data map[string]any) bool {
		return typ == "message.sent" && data["text"] == "Alice here"
	}) {
		t.Error("no message.sent of the agent's reply arrived")
	}
}

// subEvent is one conversationEvents item.
type subEvent struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// readEvents reads the subscription's events into a channel (a read whose
// context ends closes a coder/websocket connection, so one reader runs for
// the connection's life).
func readEvents(t *testing.T, c *websocket.Conn) <-chan subEvent {
	out := make(chan subEvent, 64)
	go func() {
		defer close(out)
		for {
			var m wsMessage
			if err := wsjson.Read(context.Background(), c, &m); err != nil {
				return
			}
			var p struct {
				Data struct {
					ConversationEvents subEvent `json:"conversationEvents"`
				} `json:"data"`
			}
			if m.Type != "next" || json.Unmarshal(m.Payload, &p) != nil {
				continue
			}
			out <- p.Data.ConversationEvents
		}
	}()
	return out
}

// waitEvent takes events until one matches or the time is up.
func waitEvent(events <-chan subEvent, within time.Duration, match func(typ string, data map[string]any) bool) bool {
	timeout := time.After(within)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return false
			}
			if match(e.Type, e.Data) {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// A refused connection_init closes with 4403 (graphql-transport-ws's
// Forbidden), which clients take as final, not a reason to retry.
func TestGraphQLWebSocketRefusalIs4403(t *testing.T) {
	api := resttest.New(t)
	for _, payload := range []map[string]any{
		{"Authorization": "Bearer wrong", "Msgsvc-Workspace": "ws_main"},
		{"Authorization": "Bearer admin-token"},
	} {
		_, ack := dialGraphQL(t, api, payload)
		if !strings.HasPrefix(ack.Type, "closed 4403:") {
			t.Errorf("%v: %s", payload, ack.Type)
		}
	}
}
