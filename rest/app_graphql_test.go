package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/member"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestGraphQLPerRole: a member uses the root fields of her role only
// (403 forbidden otherwise), in her own workspace, and an agent replies as
// herself.
func TestGraphQLPerRole(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	agent := signIn(t, api, sink, "alice@main.test")
	dev := signIn(t, api, sink, "devi@main.test")
	admin := signIn(t, api, sink, "ada@main.test")
	owner := signIn(t, api, sink, "owen@main.test")
	other := signIn(t, api, sink, "oskar@other.test")
	for _, c := range []struct {
		who, name, query, code string
	}{
		{agent, "agent me", `{ me { id role } }`, ""},
		{agent, "agent conversations", `{ conversations(limit: 1) { items { id } } }`, ""},
		{agent, "agent conversation", `{ conversation(id: "conv_wa_1h") { id } }`, ""},
		{agent, "agent members", `{ members { id } }`, ""},
		{agent, "agent webhooks", `{ webhookEndpoints { items { id } } }`, "forbidden"},
		{agent, "agent invites", `mutation { inviteMember(email: "x@main.test", name: "X", role: "agent") { id } }`, "forbidden"},
		{agent, "agent replies as bob", `mutation { agentReply(conversationId: "conv_wa_1h", agentId: "usr_bob", text: "hi") { id } }`, "forbidden"},
		{agent, "agent types as bob", `mutation { agentTyping(conversationId: "conv_wa_1h", agentId: "usr_bob") }`, "forbidden"},
		{dev, "developer webhooks", `{ webhookEndpoints { items { id } } }`, ""},
		{dev, "developer usage", `{ usage { period } }`, ""},
		{dev, "developer conversations", `{ conversations(limit: 1) { items { id } } }`, "forbidden"},
		{dev, "developer replies", `mutation { agentReply(conversationId: "conv_wa_1h", agentId: "usr_dev", text: "hi") { id } }`, "forbidden"},
		{admin, "admin AI instructions", `{ aiInstructions }`, ""},
		{admin, "admin invites", `mutation { inviteMember(email: "x@main.test", name: "X", role: "agent") { id } }`, "forbidden"},
		{owner, "owner conversations", `{ conversations(limit: 1) { items { id } } }`, ""},
		{owner, "owner webhooks", `{ webhookEndpoints { items { id } } }`, ""},
		{other, "another workspace's conversation", `{ conversation(id: "conv_wa_1h") { id } }`, "conversation_not_found"},
		{other, "another workspace's member", `mutation { agentReply(conversationId: "conv_wa_1h", agentId: "usr_alice", text: "hi") { id } }`, "forbidden"},
	} {
		if _, code := asMember(t, api, c.who, c.query); code != c.code {
			t.Errorf("%s: %q, want %q", c.name, code, c.code)
		}
	}
	data, _ := asMember(t, api, other, `{ conversations(limit: 50) { items { id } } me { id role } }`)
	if s := toJSON(data["conversations"]); strings.Contains(s, "conv_wa_1h") || !strings.Contains(s, "conv_other") {
		t.Errorf("ws_other's agent lists %s", s)
	}
	if me := data["me"].(map[string]any); me["id"] != "usr_other_agent" || me["role"] != "agent" {
		t.Errorf("me = %v", me)
	}
	// An agent replies as herself: the message names her.
	conv := api.Inbound("website", "visitor-app", "hello")["conversation"].(map[string]any)["id"].(string)
	data, code := asMember(t, api, agent, `mutation { agentReply(conversationId: "`+conv+`", agentId: "usr_alice", text: "Alice here") { sender { type name } } }`)
	if code != "" || toJSON(data["agentReply"]) != `{"sender":{"name":"Alice","type":"agent"}}` {
		t.Errorf("agentReply as herself: %q %v", code, data)
	}
	// The admin token may still name any agent.
	gql(t, api, `mutation { agentTyping(conversationId: "`+conv+`", agentId: "usr_alice") }`, "")
}

// TestMembersManagement: owners invite (the invitation is a sign-in
// code), change roles and switch members off (their sessions end at once);
// the last active owner stays; mySessions and endSession.
func TestMembersManagement(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	owner := signIn(t, api, sink, "owen@main.test")
	data, code := asMember(t, api, owner, `mutation { inviteMember(email: "Newbie@Main.test", name: "Newbie", role: "agent") { id email role active } }`)
	if code != "" {
		t.Fatalf("invite: %s", code)
	}
	invited := data["inviteMember"].(map[string]any)
	if invited["email"] != "newbie@main.test" || invited["role"] != "agent" || invited["active"] != true {
		t.Errorf("invited %v", invited)
	}
	if _, code := asMember(t, api, owner, `mutation { inviteMember(email: "alice@MAIN.test", name: "A", role: "agent") { id } }`); code != "member_exists" {
		t.Errorf("inviting a member's address: %q", code)
	}
	if _, code := asMember(t, api, owner, `mutation { inviteMember(email: "x@main.test", name: "X", role: "boss") { id } }`); code != "invalid_request" {
		t.Errorf("an unknown role: %q", code)
	}
	newbie := signInWith(t, api, "newbie@main.test", sink.code(t, "newbie@main.test"))
	if data, _ := asMember(t, api, newbie, `{ me { id role } }`); data["me"].(map[string]any)["id"] != invited["id"] {
		t.Errorf("the invited member: %v", data)
	}
	id := invited["id"].(string)
	if _, code := asMember(t, api, owner, `mutation { updateMemberRole(id: "`+id+`", role: "developer") { role } }`); code != "" {
		t.Errorf("role change: %s", code)
	}
	if _, code := asMember(t, api, newbie, `{ webhookEndpoints { items { id } } }`); code != "" {
		t.Errorf("a new developer's webhooks: %s", code)
	}
	if _, code := asMember(t, api, owner, `mutation { setMemberActive(id: "`+id+`", active: false) { active } }`); code != "" {
		t.Fatalf("switching off: %s", code)
	}
	if _, code := asMember(t, api, newbie, `{ me { id } }`); code != "sign_in_required" {
		t.Errorf("a switched-off member's session: %q", code)
	}
	for _, q := range []string{`mutation { setMemberActive(id: "usr_owen", active: false) { id } }`,
		`mutation { updateMemberRole(id: "usr_owen", role: "admin") { id } }`} {
		if _, code := asMember(t, api, owner, q); code != "last_owner" {
			t.Errorf("%s: %q", q, code)
		}
	}
	if _, code := asMember(t, api, owner, `mutation { setMemberActive(id: "usr_oskar", active: false) { id } }`); code != "member_not_found" {
		t.Errorf("another workspace's member: %q", code)
	}
	if _, code := asMember(t, api, owner, `mutation { setMemberActive(id: "usr_other_agent", active: false) { id } }`); code != "member_not_found" {
		t.Errorf("another workspace's member: %q", code)
	}
	// The existing setAgentActive ends sessions too.
	alice := signIn(t, api, sink, "alice@main.test")
	gql(t, api, `mutation { setAgentActive(id: "usr_alice", active: false) { active } }`, "")
	if _, code := asMember(t, api, alice, `{ me { id } }`); code != "sign_in_required" {
		t.Errorf("after setAgentActive false: %q", code)
	}
	// Sessions: listed with the current one marked, ended one by one.
	second := signIn(t, api, sink, "owen@main.test")
	data, _ = asMember(t, api, owner, `{ mySessions { id current } }`)
	sessions := data["mySessions"].([]any)
	if len(sessions) != 2 {
		t.Fatalf("mySessions = %v", sessions)
	}
	var otherID string
	for _, s := range sessions {
		if s.(map[string]any)["current"] == false {
			otherID = s.(map[string]any)["id"].(string)
		}
	}
	if _, code := asMember(t, api, owner, `mutation { endSession(id: "`+otherID+`") }`); code != "" {
		t.Fatalf("endSession: %s", code)
	}
	if _, code := asMember(t, api, second, `{ me { id } }`); code != "sign_in_required" {
		t.Errorf("an ended session: %q", code)
	}
	if _, code := asMember(t, api, owner, `{ me { id } }`); code != "" {
		t.Errorf("the current session after ending the other: %q", code)
	}
}

// TestStepUp: each purpose its own code, verified within 10 minutes; the
// sign-in code never counts; the admin token needs none.
func TestStepUp(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	dev := signIn(t, api, sink, "devi@main.test")
	people := api.Resolver.People
	actor := &auth.Actor{WorkspaceID: "ws_main", MemberID: "usr_dev", Role: auth.RoleDeveloper}
	ctx := auth.WithActor(t.Context(), actor)
	require := func(purpose string) string {
		err := people.RequireStepUp(ctx, purpose)
		if err == nil {
			return ""
		}
		return err.Error()
	}
	if got := require("create_key"); !strings.HasPrefix(got, "step_up_required") {
		t.Fatalf("before any step-up: %q", got)
	}
	// A sign-in code is no step-up code.
	appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": "devi@main.test"})
	if _, code := asMember(t, api, dev, `mutation { verifyStepUp(purpose: "create_key", code: "`+sink.code(t, "devi@main.test")+`") }`); code != "invalid_code" {
		t.Errorf("a sign-in code as a step-up: %q", code)
	}
	if _, code := asMember(t, api, dev, `mutation { requestStepUpCode(purpose: "create_key") }`); code != "" {
		t.Fatal(code)
	}
	code := sink.code(t, "devi@main.test")
	if _, got := asMember(t, api, dev, `mutation { verifyStepUp(purpose: "roll_key", code: "`+code+`") }`); got != "invalid_code" {
		t.Errorf("another purpose's code: %q", got)
	}
	if _, got := asMember(t, api, dev, `mutation { verifyStepUp(purpose: "create_key", code: "`+code+`") }`); got != "" {
		t.Fatalf("verifyStepUp: %q", got)
	}
	if _, got := asMember(t, api, dev, `mutation { verifyStepUp(purpose: "create_key", code: "`+code+`") }`); got != "invalid_code" {
		t.Errorf("a step-up code used twice: %q", got)
	}
	if got := require("create_key"); got != "" {
		t.Errorf("after verifying: %q", got)
	}
	if got := require("roll_key"); !strings.HasPrefix(got, "step_up_required") {
		t.Errorf("another purpose: %q", got)
	}
	api.Clock.Advance(member.StepUpTTL)
	if got := require("create_key"); !strings.HasPrefix(got, "step_up_required") {
		t.Errorf("10 minutes later: %q", got)
	}
	if err := people.RequireStepUp(auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Admin: true}), "roll_key"); err != nil {
		t.Errorf("the admin token: %v", err)
	}
	if _, got := asMember(t, api, dev, `mutation { requestStepUpCode(purpose: "everything") }`); got != "invalid_request" {
		t.Errorf("an unknown purpose: %q", got)
	}
}

// signInWith signs in with a known code and returns the Cookie header.
func signInWith(t *testing.T, api *resttest.API, email, code string) string {
	t.Helper()
	r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": email, "code": code})
	if r.Status != 200 {
		t.Fatalf("sign-in of %s: %d %v", email, r.Status, r.Body)
	}
	return strings.SplitN(r.Header.Get("Set-Cookie"), ";", 2)[0]
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSubscriptionAsMember: the session cookie on a same-origin upgrade
// opens graphql-ws as the member (her role checked on the subscription);
// a developer's subscription to conversations is refused.
func TestSubscriptionAsMember(t *testing.T) {
	t.Parallel()
	api, sink := appAPI(t, "")
	for _, c := range []struct{ email, want string }{{"alice@main.test", `"type":"conversation.created"`}, {"devi@main.test", `"code":"forbidden"`}} {
		cookie := signIn(t, api, sink, c.email)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		url := "ws" + strings.TrimPrefix(api.HTTP.URL, "http") + "/graphql"
		conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"},
			HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {api.HTTP.URL}}})
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", c.email, err)
		}
		_ = wsjson.Write(ctx, conn, wsMessage{Type: "connection_init", Payload: json.RawMessage(`{"Msgsvc-Livemode":"false"}`)})
		var ack wsMessage
		if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
			t.Fatalf("%s: ack %v %v", c.email, ack, err)
		}
		_ = wsjson.Write(ctx, conn, wsMessage{ID: "1", Type: "subscribe",
			Payload: json.RawMessage(`{"query":"subscription { conversationEvents { type } }"}`)})
		received := make(chan struct{})
		var posting sync.WaitGroup
		if c.email == "alice@main.test" {
			// The subscription streams the events after the last one when
			// the server handles subscribe, which may come after a message
			// posted at once: a message is posted until one arrives.
			posting.Go(func() {
				for {
					api.Do("POST", "/v1/test/inbound", "test_all", map[string]any{
						"channel": "website", "from": "visitor-ws-" + c.email, "name": "Customer", "text": "hello"})
					select {
					case <-received:
						return
					case <-time.After(300 * time.Millisecond):
					}
				}
			})
		}
		var got wsMessage
		if err := wsjson.Read(ctx, conn, &got); err != nil || got.Type != "next" || !strings.Contains(string(got.Payload), c.want) {
			t.Errorf("%s: %v %s %v, want %s", c.email, got.Type, got.Payload, err, c.want)
		}
		close(received)
		posting.Wait()
		conn.CloseNow()
		cancel()
	}
}

// TestSwitchedOffMemberSocketCloses: a member switched off loses her open
// WebSocket too, at its next session check.
func TestSwitchedOffMemberSocketCloses(t *testing.T) {
	t.Parallel()
	sink := &codeSink{codes: map[string]string{}, mails: map[string]int{}}
	api := resttest.New(t, func(a *resttest.API) {
		a.Config.MemberMail = sink
		a.Server.SessionRecheck = 50 * time.Millisecond
	})
	cookie := signIn(t, api, sink, "alice@main.test")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(api.HTTP.URL, "http") + "/graphql"
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"},
		HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {api.HTTP.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	_ = wsjson.Write(ctx, conn, wsMessage{Type: "connection_init", Payload: json.RawMessage(`{}`)})
	var msg wsMessage
	if err := wsjson.Read(ctx, conn, &msg); err != nil || msg.Type != "connection_ack" {
		t.Fatalf("ack %v %v", msg, err)
	}
	_ = wsjson.Write(ctx, conn, wsMessage{ID: "1", Type: "subscribe",
		Payload: json.RawMessage(`{"query":"subscription { conversationEvents { type } }"}`)})
	gql(t, api, `mutation { setAgentActive(id: "usr_alice", active: false) { active } }`, "")
	for {
		if err := wsjson.Read(ctx, conn, &msg); err != nil {
			if ctx.Err() != nil {
				t.Fatal("the socket of a switched-off member stayed open")
			}
			return
		}
	}
}
