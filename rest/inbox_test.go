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

// inboxIDs runs an inbox query and returns its conversations' ids with
// their unread marks.
func inboxIDs(t *testing.T, api *resttest.API, args string) (map[string]bool, map[string]any) {
	t.Helper()
	page := gql(t, api, `{ inbox(`+args+`) { items { unread conversation { id } } hasMore nextCursor } }`, "")["inbox"].(map[string]any)
	out := map[string]bool{}
	for _, it := range page["items"].([]any) {
		item := it.(map[string]any)
		out[item["conversation"].(map[string]any)["id"].(string)] = item["unread"].(bool)
	}
	return out, page
}

// waitingConversation starts a website chat queued for a person.
func waitingConversation(t *testing.T, api *resttest.API, visitor string) string {
	t.Helper()
	conv := api.Inbound("website", visitor, "I need help")["conversation"].(map[string]any)["id"].(string)
	api.Want(api.Do("PATCH", "/v1/conversations/"+conv, "test_all", map[string]any{"mode": "human"}), 200, "")
	return conv
}

// TestInboxViewsAndUnread: the views list what they say, unread follows
// read marks and new customer messages, Mine needs a member, and take
// over / close / reopen move a conversation between views.
func TestInboxViewsAndUnread(t *testing.T) {
	api := resttest.New(t)
	conv := waitingConversation(t, api, "visitor-inbox")
	alice := `memberId: "usr_alice"`
	waiting, _ := inboxIDs(t, api, `view: WAITING, `+alice)
	if unread, ok := waiting[conv]; !ok || !unread {
		t.Fatalf("WAITING = %v, want %s unread", waiting, conv)
	}
	if _, ok := waiting["conv_wa_1h"]; ok {
		t.Errorf("WAITING lists the AI's conv_wa_1h")
	}
	ai, _ := inboxIDs(t, api, `view: AI`)
	if _, ok := ai["conv_wa_1h"]; !ok || len(ai) == 0 {
		t.Errorf("AI = %v, want conv_wa_1h", ai)
	}
	if _, ok := ai[conv]; ok {
		t.Errorf("AI lists the waiting %s", conv)
	}
	counts := func() map[string]any {
		return gql(t, api, `{ inboxCounts(`+alice+`) { waiting mine ai external all } }`, "")["inboxCounts"].(map[string]any)
	}
	before := counts()
	if before["waiting"].(float64) != 1 {
		t.Errorf("inboxCounts = %v, want waiting 1", before)
	}
	read := gql(t, api, `mutation { markConversationRead(id: "`+conv+`", `+alice+`) { unread } }`, "")["markConversationRead"].(map[string]any)
	if read["unread"] != false {
		t.Errorf("markConversationRead = %v", read)
	}
	if c := counts(); c["waiting"].(float64) != 0 || c["all"].(float64) != before["all"].(float64)-1 {
		t.Errorf("after reading: %v (before %v)", c, before)
	}
	api.Clock.Advance(time.Minute)
	api.Inbound("website", "visitor-inbox", "still there?")
	if waiting, _ := inboxIDs(t, api, `view: WAITING, `+alice); !waiting[conv] {
		t.Errorf("a new customer message left %s read: %v", conv, waiting)
	}
	gql(t, api, `{ inbox(view: MINE) { hasMore } }`, "invalid_request")
	gql(t, api, `{ inbox(view: MINE, memberId: "usr_bob") { hasMore } }`, "agent_not_found")
	gql(t, api, `{ inboxCounts { all } }`, "invalid_request")

	took := gql(t, api, `mutation { takeOver(id: "`+conv+`", `+alice+`) { mode assignedAgentId } }`, "")["takeOver"].(map[string]any)
	if took["mode"] != "human" || took["assignedAgentId"] != "usr_alice" {
		t.Errorf("takeOver = %v", took)
	}
	if mine, _ := inboxIDs(t, api, `view: MINE, `+alice); len(mine) != 1 || !mine[conv] {
		t.Errorf("MINE = %v, want %s", mine, conv)
	}
	if waiting, _ := inboxIDs(t, api, `view: WAITING`); len(waiting) != 0 {
		t.Errorf("WAITING after takeOver = %v", waiting)
	}
	gql(t, api, `mutation { closeConversation(id: "`+conv+`") { status } }`, "")
	if closed, _ := inboxIDs(t, api, `view: CLOSED`); !hasKey(closed, conv) || !hasKey(closed, "conv_web_closed") {
		t.Errorf("CLOSED = %v", closed)
	}
	re := gql(t, api, `mutation { reopenConversation(id: "`+conv+`") { status } }`, "")["reopenConversation"].(map[string]any)
	if re["status"] != "open" {
		t.Errorf("reopenConversation = %v", re)
	}
	types := map[string]int{}
	for _, e := range api.Events("ws_main") {
		types[e.Type]++
	}
	if types["conversation.updated"] < 4 {
		t.Errorf("events %v: want conversation.updated for mode, takeOver, close, reopen", types)
	}
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }

// TestInboxFiltersAndPages: channel and tag filters, keyset pages that
// cover a view once, and isolation: another workspace and the other mode
// list none of it.
func TestInboxFiltersAndPages(t *testing.T) {
	api := resttest.New(t)
	conv := waitingConversation(t, api, "visitor-tags")
	gql(t, api, `mutation { updateConversation(id: "`+conv+`", input: {tags: ["vip"]}) { id } }`, "")
	if vip, _ := inboxIDs(t, api, `view: ALL, tag: "vip"`); len(vip) != 1 || !hasKey(vip, conv) {
		t.Errorf("tag vip = %v", vip)
	}
	wa, _ := inboxIDs(t, api, `view: ALL, channel: "whatsapp"`)
	if hasKey(wa, conv) || !hasKey(wa, "conv_wa_1h") {
		t.Errorf("channel whatsapp = %v", wa)
	}
	all, _ := inboxIDs(t, api, `view: ALL`)
	seen := map[string]bool{}
	after := ""
	for pages := 0; ; pages++ {
		ids, page := inboxIDs(t, api, `view: ALL, limit: 2`+after)
		for id := range ids {
			if seen[id] {
				t.Fatalf("%s on two pages", id)
			}
			seen[id] = true
		}
		if page["hasMore"] != true {
			break
		}
		after = fmt.Sprintf(`, after: %q`, page["nextCursor"])
		if pages > 10 {
			t.Fatal("pages do not end")
		}
	}
	if len(seen) != len(all) {
		t.Errorf("pages listed %d, the view has %d", len(seen), len(all))
	}
	gql(t, api, `{ inbox(view: ALL, after: "forged") { hasMore } }`, "invalid_cursor")
	gql(t, api, `{ inbox(view: ALL, channel: "fax") { hasMore } }`, "invalid_request")
	_, other := graphql(t, api, "admin-token", "ws_other", `{ inbox(view: ALL) { items { conversation { id } } } }`)
	if s := fmt.Sprint(other); strings.Contains(s, conv) || !strings.Contains(s, "conv_other") {
		t.Errorf("ws_other's inbox: %s", s)
	}
	_, live := graphqlMode(t, api, "admin-token", "ws_main", true, `{ inbox(view: ALL) { items { conversation { id } } } }`)
	if s := fmt.Sprint(live); strings.Contains(s, conv) || !strings.Contains(s, "conv_live") {
		t.Errorf("live inbox: %s", s)
	}
}

// TestNotesStayPrivate: a note is listed with its author for members and
// streamed to them, and is in no message list, event or webhook.
func TestNotesStayPrivate(t *testing.T) {
	api := resttest.New(t)
	conv := waitingConversation(t, api, "visitor-notes")
	frames := subscribeGraphQL(t, api, `subscription { conversationNotes(conversationId: "`+conv+`") { text author { name } } }`)
	const secret = "customer is a VIP, refund quietly"
	var got string
	for i := 0; got == "" && i < 10; i++ { // the subscription starts when the server gets it
		gql(t, api, `mutation { addNote(conversationId: "`+conv+`", text: "`+secret+`", memberId: "usr_alice") { id } }`, "")
		got = waitFrame(frames, time.Second, "conversationNotes")
	}
	if !strings.Contains(got, secret) || !strings.Contains(got, "Alice") {
		t.Errorf("conversationNotes sent %q", got)
	}
	notes := gql(t, api, `{ notes(conversationId: "`+conv+`") { items { text author { id name } } } }`, "")
	if s := fmt.Sprint(notes); !strings.Contains(s, secret) || !strings.Contains(s, "usr_alice") {
		t.Errorf("notes = %s", s)
	}
	gql(t, api, `mutation { addNote(conversationId: "conv_other", text: "x", memberId: "usr_alice") { id } }`, "conversation_not_found")
	gql(t, api, `mutation { addNote(conversationId: "`+conv+`", text: " ", memberId: "usr_alice") { id } }`, "text_required")
	msgs := api.Want(api.Do("GET", "/v1/conversations/"+conv+"/messages", "test_all", nil), 200, "")
	if strings.Contains(fmt.Sprint(msgs.Items()), secret) {
		t.Error("a note is in /v1 messages")
	}
	for _, e := range api.Events("ws_main") {
		if strings.Contains(fmt.Sprint(e), secret) {
			t.Errorf("a note is in event %s", e.Type)
		}
	}
	_, other := graphql(t, api, "admin-token", "ws_other", `{ notes(conversationId: "`+conv+`") { items { text } } }`)
	if graphqlCode(other) != "conversation_not_found" {
		t.Errorf("ws_other read the notes: %v", other)
	}
}

// readFrames reads a connection's "next" payloads into a channel.
func readFrames(t *testing.T, c *websocket.Conn) <-chan string {
	t.Helper()
	out := make(chan string, 64)
	go func() {
		defer close(out)
		for {
			var m wsMessage
			if err := wsjson.Read(context.Background(), c, &m); err != nil {
				return
			}
			if m.Type == "next" {
				out <- string(m.Payload)
			}
		}
	}()
	return out
}

// waitFrame takes payloads until one carries field or the time is up.
func waitFrame(frames <-chan string, within time.Duration, field string) string {
	timeout := time.After(within)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return ""
			}
			if strings.Contains(f, field) {
				return f
			}
		case <-timeout:
			return ""
		}
	}
}

// subscribeGraphQL opens a graphql-ws connection to ws_main's sandbox and
// subscribes to query.
func subscribeGraphQL(t *testing.T, api *resttest.API, query string) <-chan string {
	t.Helper()
	c, ack := dialGraphQL(t, api, map[string]any{"Authorization": "Bearer admin-token", "Msgsvc-Workspace": "ws_main"})
	if ack.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v", ack)
	}
	sub, _ := json.Marshal(map[string]any{"query": query})
	if err := wsjson.Write(t.Context(), c, wsMessage{ID: "1", Type: "subscribe", Payload: sub}); err != nil {
		t.Fatal(err)
	}
	return readFrames(t, c)
}

// TestPresenceOverWebSocket: a member's presence reaches another
// subscriber of the conversation, and not one of another conversation.
func TestPresenceOverWebSocket(t *testing.T) {
	api := resttest.New(t)
	conv := waitingConversation(t, api, "visitor-presence")
	mine := subscribeGraphQL(t, api, `subscription { conversationPresence(conversationId: "`+conv+`") { member { id name } typing viewing expiresAt } }`)
	elsewhere := subscribeGraphQL(t, api, `subscription { conversationPresence(conversationId: "conv_wa_1h") { member { id } } }`)
	var got string
	for i := 0; got == "" && i < 10; i++ {
		gql(t, api, `mutation { setPresence(conversationId: "`+conv+`", typing: true, memberId: "usr_alice") }`, "")
		got = waitFrame(mine, time.Second, "conversationPresence")
	}
	if !strings.Contains(got, `"typing":true`) || !strings.Contains(got, "Alice") {
		t.Errorf("conversationPresence sent %q", got)
	}
	if f := waitFrame(elsewhere, 200*time.Millisecond, "conversationPresence"); f != "" {
		t.Errorf("another conversation's subscriber heard %s", f)
	}
	gql(t, api, `mutation { setPresence(conversationId: "conv_other", typing: false, memberId: "usr_alice") }`, "conversation_not_found")
}

// TestReplyRulesOverGraphQL: the window and its templates, opt-outs, and
// what a reply would answer, from the send's own rules.
func TestReplyRulesOverGraphQL(t *testing.T) {
	api := resttest.New(t)
	rules := func(conv string) map[string]any {
		return gql(t, api, `{ replyRules(conversationId: "`+conv+`") { channel canReply refusal { code }
			window { open templateRequired } templates { name parameters } optedOut suppressed email { from to } } }`, "")["replyRules"].(map[string]any)
	}
	closed := rules("conv_wa_25h")
	if closed["canReply"] != false || fmt.Sprint(closed["refusal"]) != "map[code:window_closed]" ||
		fmt.Sprint(closed["window"]) != "map[open:false templateRequired:true]" {
		t.Errorf("conv_wa_25h: %v", closed)
	}
	names := fmt.Sprint(closed["templates"])
	if !strings.Contains(names, "order_update") || strings.Contains(names, "pending_notice") {
		t.Errorf("templates offered: %s", names)
	}
	if open := rules("conv_wa_1h"); open["canReply"] != true || open["refusal"] != nil || len(open["templates"].([]any)) != 0 {
		t.Errorf("conv_wa_1h: %v", open)
	}
	if out := rules("conv_wa_optout"); out["optedOut"] != true || fmt.Sprint(out["refusal"]) != "map[code:recipient_opted_out]" {
		t.Errorf("conv_wa_optout: %v", out)
	}
	if web := rules("conv_web_closed"); fmt.Sprint(web["refusal"]) != "map[code:conversation_closed]" {
		t.Errorf("conv_web_closed: %v", web)
	}
	gql(t, api, `{ replyRules(conversationId: "conv_other") { channel } }`, "conversation_not_found")
}

// subscribeAs opens a graphql-ws connection as the dashboard of a
// workspace's data of one mode and subscribes to query.
func subscribeAs(t *testing.T, api *resttest.API, workspace string, live bool, query string) <-chan string {
	t.Helper()
	c, ack := dialGraphQL(t, api, map[string]any{"Authorization": "Bearer admin-token", "Msgsvc-Workspace": workspace,
		"Msgsvc-Livemode": fmt.Sprint(live)})
	if ack.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v", ack)
	}
	sub, _ := json.Marshal(map[string]any{"query": query})
	if err := wsjson.Write(t.Context(), c, wsMessage{ID: "1", Type: "subscribe", Payload: sub}); err != nil {
		t.Fatal(err)
	}
	return readFrames(t, c)
}

// TestInboxLiveUpdates: a new conversation and a new message of the
// workspace's mode reach an inbox's conversationEvents within 2 s (the
// spec's bound; the subscription polls every 200 ms), and never another
// workspace's or the other mode's.
func TestInboxLiveUpdates(t *testing.T) {
	api := resttest.New(t)
	const q = `subscription { conversationEvents { type data } }`
	mine := subscribeAs(t, api, "ws_main", false, q)
	other := subscribeAs(t, api, "ws_other", false, q)
	live := subscribeAs(t, api, "ws_main", true, q)
	// The subscriptions start when the server gets them: write until ours
	// hears.
	for i := 0; ; i++ {
		api.Inbound("website", "visitor-warmup", fmt.Sprint("warm ", i))
		if waitFrame(mine, time.Second, "warm") != "" {
			break
		}
		if i == 10 {
			t.Fatal("the subscription never started")
		}
	}
	start := time.Now()
	api.Inbound("website", "visitor-brand-new", "a brand new conversation")
	if f := waitFrame(mine, 2*time.Second, "conversation.created"); !strings.Contains(f, "visitor-brand-new") {
		t.Errorf("no conversation.created within 2 s (got %q)", f)
	}
	if f := waitFrame(mine, 2*time.Second, "a brand new conversation"); f == "" {
		t.Error("no message.received within 2 s")
	}
	t.Logf("new conversation and message arrived in %v", time.Since(start))
	api.Want(api.Do("POST", "/v1/test/inbound", "other_test", map[string]any{
		"channel": "whatsapp", "from": "+15550009006", "text": "other tenant"}), 201, "")
	if f := waitFrame(mine, 700*time.Millisecond, "other tenant"); f != "" {
		t.Errorf("ws_main heard ws_other's message: %s", f)
	}
	if f := waitFrame(other, 2*time.Second, "other tenant"); f == "" {
		t.Error("ws_other did not hear its own message")
	}
	if f := waitFrame(live, 300*time.Millisecond, "conversationEvents"); f != "" {
		t.Errorf("the live dashboard heard sandbox events: %s", f)
	}
}
