package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/web"
	"github.com/msgsvc/msgsvc/web/webtest"
)

// standIn answers the app's requests for the screens' own tests: a signed-in
// agent, and GraphQL answers chosen by the field asked for (a conversation
// of threadSize messages of every kind). The API's behaviour is tested with
// the real server (inbox_browser_test.go); this checks what the app draws.
type standIn struct {
	threadSize int
	mu         sync.Mutex
	replies    []string
	// messagePages counts the messages pages asked for.
	messagePages atomic.Int32
}

// sent is a copy of the replies the app sent so far.
func (s *standIn) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.replies...)
}

func (s *standIn) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/app/", web.Handler())
	mux.HandleFunc("GET /app/api/session", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"member": map[string]any{"id": "usr_alice", "name": "Alice", "email": "alice@main.test", "role": "agent"},
			"workspace": map[string]any{"id": "ws_main", "name": "Main"}})
	})
	mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Query     string
			Variables map[string]any
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		writeJSON(w, map[string]any{"data": s.answer(in.Query, in.Variables)})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

var at = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func conv(id, name string) map[string]any {
	return map[string]any{"id": id, "channel": "whatsapp", "status": "open", "mode": "human", "subject": nil,
		"assignedAgentId": "usr_alice", "tags": []string{"vip"}, "integrationReplies": true, "messageCount": 3,
		"lastMessageAt": at.Format(time.RFC3339), "createdAt": at.Format(time.RFC3339),
		"contact": map[string]any{"name": name, "email": nil, "phone": "+15550001111", "externalId": nil},
		"customer": map[string]any{"id": "ct_" + id, "name": name, "email": "dana@example.com", "phone": "+15550001111",
			"instagramUserId": nil, "whatsappUserId": nil, "emailSuppressed": nil,
			"optOuts":          map[string]any{"whatsapp": false, "email": false, "instagram": false},
			"marketingOptOuts": map[string]any{"whatsapp": true}}}
}

// message i of the thread: every tenth one of a rich kind.
func message(i int) map[string]any {
	m := map[string]any{"id": fmt.Sprintf("msg_%05d", i), "conversationId": "conv_big", "channel": "whatsapp",
		"direction": "inbound", "type": "text", "text": fmt.Sprintf("Message number %d", i), "html": nil, "status": "received",
		"createdAt": at.Add(time.Duration(i) * time.Second).Format(time.RFC3339), "deleted": false, "forwarded": false,
		"sender": map[string]any{"type": "customer", "name": "Dana"}, "email": nil, "attachments": []any{},
		"delivery": nil, "replyTo": nil, "location": nil, "contacts": nil, "interactive": nil, "reaction": nil,
		"order": nil, "story": nil, "share": nil, "unsupported": nil, "system": nil, "referral": nil}
	switch i % 10 {
	case 1:
		m["direction"], m["status"] = "outbound", "delivered"
		m["sender"] = map[string]any{"type": "agent", "name": "Alice"}
	case 2:
		m["type"], m["text"] = "email", fmt.Sprintf("Email number %d", i)
		m["html"] = fmt.Sprintf(`<p>Email <b>number</b> %d</p><script>parent.document.title="owned"</script>`, i)
		m["email"] = map[string]any{"from": "dana@example.com", "to": []string{"support@main.test"}, "cc": []string{}, "warnings": []any{}}
	case 3:
		m["type"] = "image"
		m["attachments"] = []any{map[string]any{"id": "file_1", "filename": "photo.png", "contentType": "image/png", "size": 2048,
			"url": "/v1/files/file_1/content?sig=x", "caption": "A photo", "status": "ready", "error": nil}}
	case 4:
		m["type"] = "location"
		m["location"] = map[string]any{"latitude": 52.52, "longitude": 13.4, "name": "Shop", "address": "Main St 1", "url": nil}
	case 5:
		m["replyTo"] = map[string]any{"messageId": fmt.Sprintf("msg_%05d", i-1), "providerMessageId": "wamid.x"}
	case 6:
		m["direction"], m["status"] = "outbound", "failed"
		m["sender"] = map[string]any{"type": "agent", "name": "Bob"}
		m["delivery"] = map[string]any{"error": map[string]any{"code": "outside_window", "message": "The 24-hour window is closed."}}
	case 7:
		m["type"] = "reaction"
		m["reaction"] = map[string]any{"emoji": "👍", "messageId": fmt.Sprintf("msg_%05d", i-1)}
	case 8:
		m["type"] = "interactive"
		m["interactive"] = map[string]any{"kind": "button_reply", "id": "yes", "title": "Yes please", "description": nil, "name": nil, "response": nil, "payload": nil}
	case 9:
		m["type"] = "contacts"
		m["contacts"] = []any{map[string]any{"name": map[string]any{"formattedName": "Eve Card"}, "phones": []any{map[string]any{"phone": "+15550002222"}},
			"emails": []any{}, "org": nil}}
	}
	return m
}

func (s *standIn) answer(q string, vars map[string]any) map[string]any {
	switch {
	case strings.Contains(q, "inboxCounts"):
		return map[string]any{"inboxCounts": map[string]any{"waiting": 3, "mine": 1, "ai": 0, "external": 0, "all": 4}}
	case strings.Contains(q, "inbox("):
		items := []any{}
		for i, name := range []string{"Dana Long", "Erin", "Farah"} {
			id := []string{"conv_big", "conv_2", "conv_3"}[i]
			items = append(items, map[string]any{"unread": i > 0, "queuedAt": nil, "conversation": conv(id, name)})
		}
		return map[string]any{"inbox": map[string]any{"items": items, "hasMore": false, "nextCursor": nil}}
	case strings.Contains(q, "conversation(id"):
		return map[string]any{"conversation": conv(vars["id"].(string), "Dana Long")}
	case strings.Contains(q, "messages(conversationId"):
		s.messagePages.Add(1)
		return map[string]any{"messages": s.messages(strings.Contains(q, "newestFirst: true"), vars)}
	case strings.Contains(q, "notes("):
		return map[string]any{"notes": map[string]any{"items": []any{map[string]any{"id": "note_1", "conversationId": "conv_big",
			"text": "VIP: be quick", "createdAt": at.Format(time.RFC3339), "author": map[string]any{"id": "usr_bob", "name": "Bob"}}},
			"hasMore": false, "nextCursor": nil}}
	case strings.Contains(q, "replyRules"):
		return map[string]any{"replyRules": map[string]any{"channel": "whatsapp", "canReply": false, "optedOut": false, "suppressed": false,
			"humanAgentUntil": nil, "refusal": map[string]any{"code": "outside_window", "message": "The customer last wrote more than 24 hours ago: send an approved template."},
			"window":    map[string]any{"open": false, "freeTextUntil": nil, "templateRequired": true, "lastInboundAt": at.Format(time.RFC3339)},
			"templates": []any{map[string]any{"id": "tpl_1", "name": "order_update", "language": "en_US", "category": "UTILITY", "body": "Your order {{1}} is on its way.", "parameterFormat": "POSITIONAL", "parameters": []string{"1"}}},
			"email":     nil}}
	case strings.Contains(q, "members"):
		return map[string]any{"members": []any{map[string]any{"id": "usr_alice", "name": "Alice", "role": "agent", "active": true},
			map[string]any{"id": "usr_bob", "name": "Bob", "role": "agent", "active": true}}}
	case strings.Contains(q, "contactConversations"):
		return map[string]any{"contactConversations": map[string]any{"items": []any{map[string]any{"id": "conv_old", "channel": "email", "status": "closed", "subject": "Refund", "lastMessageAt": at.Format(time.RFC3339)}}}}
	case strings.Contains(q, "agentReply"):
		s.mu.Lock()
		s.replies = append(s.replies, vars["text"].(string))
		s.mu.Unlock()
		m := message(1)
		m["id"], m["text"], m["status"] = "msg_reply", vars["text"], "sent"
		m["createdAt"] = at.Add(3 * time.Hour).Format(time.RFC3339)
		return map[string]any{"agentReply": m}
	case strings.Contains(q, "markConversationRead"):
		return map[string]any{"markConversationRead": map[string]any{"unread": false}}
	case strings.Contains(q, "setPresence"):
		return map[string]any{"setPresence": true}
	}
	return nil
}

// messages is a page of 100 of the thread, oldest first or newest first
// (the cursor is the index of the next message to serve).
func (s *standIn) messages(newestFirst bool, vars map[string]any) map[string]any {
	from := 0
	if newestFirst {
		from = s.threadSize - 1
	}
	if a, ok := vars["after"].(string); ok {
		from, _ = strconv.Atoi(a)
	}
	items := []any{}
	step, next := 1, from
	if newestFirst {
		step = -1
	}
	for ; len(items) < 100 && next >= 0 && next < s.threadSize; next += step {
		items = append(items, message(next))
	}
	more := next >= 0 && next < s.threadSize
	var cursor any
	if more {
		cursor = strconv.Itoa(next)
	}
	return map[string]any{"items": items, "hasMore": more, "nextCursor": cursor}
}

// TestConversationScreenInChromium: a conversation of 5,000 messages of every
// kind opens at its newest message with a bounded DOM (the log is
// virtualised), the email HTML sits in a sandboxed frame whose script does
// not run, the channel's rule and its template show before sending, Enter
// sends, the shortcuts dialog opens with ?, and axe is clean.
func TestConversationScreenInChromium(t *testing.T) {
	s := &standIn{threadSize: 5000}
	srv := httptest.NewServer(s.handler())
	t.Cleanup(srv.Close)
	p := webtest.NewBrowser(t, srv.URL).Person()
	p.Open("/app/inbox")
	p.WaitFor("navigation", "Main")
	p.WaitForPrefix("link", "Waiting 3")
	p.WaitText("list", "Conversations", "Dana Long")
	p.Axe("inbox")

	start := time.Now()
	p.ClickNode(p.WaitForPrefix("link", "Dana Long"))
	p.WaitText("log", "Messages", "Message number 4999")
	t.Logf("the newest of 5,000 messages shown in %s", time.Since(start))
	if n := s.messagePages.Load(); n > 2 {
		t.Errorf("%d pages of messages asked for before the newest showed; want the newest page first, not all 50", n)
	}
	var timing []float64
	p.Eval(`(() => { const r = performance.getEntriesByType('resource').filter(e => e.name.endsWith('/graphql')); return [r.length, r[0].startTime, r[r.length-1].responseEnd, performance.now(), r.reduce((a, e) => a + e.duration, 0) / r.length] })()`, &timing)
	t.Logf("graphql requests, first start, last end, now: %v", timing)
	var rendered int
	p.Eval(`document.querySelectorAll('[role=log] article').length`, &rendered)
	if rendered < 5 || rendered > 200 {
		t.Errorf("the log has %d message elements for 5,000 messages; want a virtualised window", rendered)
	}
	p.WaitFor("button", "Hand back to AI")
	p.WaitFor("button", "Close conversation")
	p.WaitFor("button", "Pause integration replies")
	p.WaitFor("combobox", "Assign to")
	p.WaitFor("textbox", "Reply")
	if txt := p.TextOf("group", "Before you send"); !strings.Contains(txt, "24-hour window is closed") || !strings.Contains(txt, "Send an approved template (1)") {
		t.Errorf("the rules before sending show %q", txt)
	}
	p.Axe("conversation")

	// Scroll up to the top, page by page: the older pages load, the reader's
	// place is kept, and the first messages come into the DOM.
	var lost string
	p.Eval(`(async () => {
		const l = document.querySelector('[role=log]');
		const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
		const lost = [];
		for (let i = 0; i < 1000 && !l.textContent.includes('Message number 0'); i++) {
			l.scrollTop = 0; l.dispatchEvent(new Event('scroll'));
			await sleep(0);
			const box = l.getBoundingClientRect();
			const seen = (e) => { const r = e.getBoundingClientRect(); return r.bottom > box.top && r.top < box.bottom; };
			// the first message in view (the note sorts first), if drawn yet
			const top = [...l.querySelectorAll('[data-vkey^="m"]')].find(seen)?.dataset.vkey;
			const before = l.scrollHeight;
			await sleep(50);
			// once a page came in above, the message that was at the top is still in view
			if (l.scrollHeight > before + 3000) await sleep(100); // the window redrawn at the kept place
			const el = top && l.querySelector('[data-vkey="' + top + '"]');
			if (top && l.scrollHeight > before + 3000 && !(el && seen(el))) lost.push([i, top, !!el, before, l.scrollHeight, l.scrollTop]);
		}
		return JSON.stringify(lost);
	})()`, &lost)
	p.WaitText("log", "Messages", "Message number 0")
	if lost != "[]" {
		t.Errorf("loading an older page moved the message in view out of it (iteration, message, in the DOM, height before, after, scrollTop): %s", lost)
	}
	if n := s.messagePages.Load(); n != 50 {
		t.Errorf("%d pages of messages asked for after scrolling to the top; want 50", n)
	}
	var frames []struct{ Sandbox, Title string }
	p.Eval(`[...document.querySelectorAll('iframe')].map(f => ({Sandbox: f.getAttribute('sandbox'), Title: f.title}))`, &frames)
	if len(frames) == 0 {
		t.Fatal("no email frame near the top of the thread")
	}
	for _, f := range frames {
		if f.Sandbox != "" {
			t.Errorf("an email frame's sandbox is %q; want empty (no scripts, opaque origin)", f.Sandbox)
		}
	}
	var title string
	p.Eval(`document.title`, &title)
	if title == "owned" {
		t.Error("the email's script ran")
	}
	p.Axe("conversation, top of the thread")
	p.Screenshot("conversation-top")

	p.Fill("textbox", "Reply", "On its way!")
	p.Press("\r")
	resttestEventually(t, func() bool { return len(s.sent()) > 0 })
	p.WaitText("log", "Messages", "On its way!")
	if sent := s.sent(); len(sent) != 1 || sent[0] != "On its way!" {
		t.Errorf("replies sent: %q", sent)
	}
	p.Focus("log", "Messages")
	p.Press("?")
	p.WaitFor("dialog", "Keyboard shortcuts")
	p.Axe("shortcuts")
	p.Screenshot("conversation-standin")
}

func resttestEventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
