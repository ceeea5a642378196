package rest_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestSendReplyOnEveryChannel(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	convs := map[string]string{
		"website":   startConv(api, map[string]any{"channel": "website", "from": "visitor-1"}),
		"whatsapp":  "conv_wa_1h",
		"instagram": startConv(api, map[string]any{"channel": "instagram", "from": "1784000001"}),
		"email":     startConv(api, map[string]any{"channel": "email", "from": "kim@example.com", "subject": "Order"}),
	}
	for channel, convID := range convs {
		body := map[string]any{"conversation_id": convID, "text": "reply on " + channel}
		if channel == "email" {
			body["html"] = `<p onclick="x()">Hi<script>alert(1)</script></p>`
		}
		msg := api.Want(sendMsg(api, "test_all", body), 201, "").Data()
		if msg["direction"] != "outbound" || msg["status"] != "sent" || msg["channel"] != channel ||
			msg["conversation_id"] != convID || msg["text"] != "reply on "+channel || msg["object"] != "message" {
			t.Errorf("%s: message %v", channel, msg)
		}
		if sender := msg["sender"].(map[string]any); sender["type"] != "api" {
			t.Errorf("%s: sender %v", channel, sender)
		}
		d, _ := msg["delivery"].(map[string]any)
		if d == nil || d["provider_message_id"] == nil || d["sent_at"] != "2026-10-15T12:00:00.000Z" || d["delivered_at"] != nil || d["error"] != nil {
			t.Errorf("%s: delivery %v", channel, msg["delivery"])
		}
		got := api.Want(api.Do("GET", "/v1/messages/"+msg["id"].(string), "msg_read", nil), 200, "").Data()
		if got["id"] != msg["id"] || got["status"] != "sent" {
			t.Errorf("%s: GET message %v", channel, got)
		}
		if channel == "email" {
			if msg["html_raw"] != body["html"] || strings.Contains(msg["html"].(string), "script") || strings.Contains(msg["html"].(string), "onclick") {
				t.Errorf("email html %q raw %q", msg["html"], msg["html_raw"])
			}
			headers := msg["email"].(map[string]any)
			if headers["from"] != "support@verified.test" || headers["to"].([]any)[0] != "kim@example.com" {
				t.Errorf("email headers %v", headers)
			}
		}
	}
	events := api.Events("ws_main")
	if last := events[len(events)-1]; last.Type != "message.sent" || last.Envelope["data"].(map[string]any)["direction"] != "outbound" {
		t.Errorf("last event %s %v", last.Type, last.Envelope["data"])
	}
	conv := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "test_all", nil), 200, "").Data()
	if conv["message_count"] != float64(3) || conv["last_message_at"] != "2026-10-15T12:00:00.000Z" {
		t.Errorf("conversation after a reply: %v", conv)
	}
}

func TestSendStartsConversations(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	before := len(api.Events("ws_main"))
	// WhatsApp to a number that never wrote: only a template may go.
	first := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "to": "+1 555 010 9999",
		"whatsapp_account_id": "wa_main", "template": tpl("order_update", "A-1")}), 201, "").Data()
	if first["text"] != "Order A-1 shipped" || first["type"] != "template" {
		t.Errorf("template message %v", first)
	}
	var types []string
	for _, e := range api.Events("ws_main")[before:] {
		types = append(types, e.Type)
	}
	if strings.Join(types, ",") != "contact.created,conversation.created,message.sent" {
		t.Errorf("events %v", types)
	}
	conv := api.Want(api.Do("GET", "/v1/conversations/"+first["conversation_id"].(string), "test_all", nil), 200, "").Data()
	if conv["channel"] != "whatsapp" || conv["contact"].(map[string]any)["phone"] != "+15550109999" || conv["website_id"] != "web_main" {
		t.Errorf("new conversation %v", conv)
	}
	// The same number again continues that conversation.
	again := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "to": "+15550109999",
		"whatsapp_account_id": "wa_main", "template": tpl("order_update", "A-2")}), 201, "").Data()
	if again["conversation_id"] != first["conversation_id"] {
		t.Errorf("second send started %v, want %v", again["conversation_id"], first["conversation_id"])
	}
	// By contact: Rita wrote an hour ago, so free text is fine.
	rita := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "contact_id": "ct_recent",
		"whatsapp_account_id": "wa_main", "text": "hello Rita"}), 201, "").Data()
	if rita["conversation_id"] != "conv_wa_1h" {
		t.Errorf("send to ct_recent went to %v", rita["conversation_id"])
	}
	// A new email thread.
	mail := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "email", "to": "new@example.com",
		"from": "support@verified.test", "subject": "Welcome", "text": "Hi", "cc": []string{"boss@example.com"}}), 201, "").Data()
	headers := mail["email"].(map[string]any)
	if headers["from"] != "support@verified.test" || headers["to"].([]any)[0] != "new@example.com" || headers["cc"].([]any)[0] != "boss@example.com" {
		t.Errorf("email headers %v", headers)
	}
	thread := api.Want(api.Do("GET", "/v1/conversations/"+mail["conversation_id"].(string), "test_all", nil), 200, "").Data()
	if thread["subject"] != "Welcome" || thread["channel"] != "email" {
		t.Errorf("email thread %v", thread)
	}
	// Instagram: a customer who wrote gets a reply in their conversation.
	ig := startConv(api, map[string]any{"channel": "instagram", "from": "1784000222"})
	dm := api.Want(sendMsg(api, "test_all", map[string]any{"channel": "instagram", "to": "1784000222", "text": "hi"}), 201, "").Data()
	if dm["conversation_id"] != ig {
		t.Errorf("instagram send went to %v, want %v", dm["conversation_id"], ig)
	}
}

// The HTTP mapping of a refused send: the scope, the body's shape, the
// Idempotency-Key header, and one code of each status. The rules behind
// each code, and their order, are tested in graph/send.
func TestSendErrors(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	web := startConv(api, map[string]any{"channel": "website", "from": "visitor-err"})
	paused := startConv(api, map[string]any{"channel": "whatsapp", "from": "+15550107777"})
	dbExec(t, api, `UPDATE conversations SET integration_replies = false WHERE id = $1`, paused)

	cases := []struct {
		name, key string
		body      any
		header    []string
		status    int
		code      string
	}{
		{"scope", "msg_read", map[string]any{"conversation_id": web, "text": "x"}, nil, 403, "insufficient_scope"},
		{"not json", "test_all", `{"text":`, nil, 400, "invalid_request"},
		{"unknown field", "test_all", map[string]any{"conversation_id": web, "txt": "x"}, nil, 400, "invalid_request"},
		{"invalid_idempotency_key", "test_all", map[string]any{"conversation_id": web, "text": "x"},
			[]string{"Idempotency-Key", strings.Repeat("k", 256)}, 400, "invalid_idempotency_key"},
		{"a 404", "test_all", map[string]any{"conversation_id": "conv_missing", "text": "x"}, nil, 404, "conversation_not_found"},
		{"a 409", "test_all", map[string]any{"conversation_id": paused, "text": "x"}, nil, 409, "integration_paused"},
		{"a 422", "test_all", map[string]any{"conversation_id": "conv_wa_25h", "text": "x"}, nil, 422, "window_closed"},
	}
	for _, c := range cases {
		r := api.Do("POST", "/v1/messages", c.key, c.body, c.header...)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s: got %d %q, want %d %q: %s", c.name, r.Status, r.Code(), c.status, c.code, r.Raw)
		}
	}
	// Nothing refused was stored: only the inbound messages exist.
	var outbound int
	if err := api.Store.DB.Get(&outbound, `SELECT count(*) FROM messages WHERE direction = 'outbound'`); err != nil || outbound != 0 {
		t.Errorf("outbound messages stored by refused sends: got %d (%v), want 0", outbound, err)
	}
}

// The checks the HTTP layer makes before the send's rules, in their order
// (the rules' own order is tested in graph/send).
func TestSendCheckOrder(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	long := strings.Repeat("k", 256)
	cases := []struct {
		name, key string
		body      any
		header    []string
		code      string
	}{
		{"scope before body", "msg_read", `not json`, nil, "insufficient_scope"},
		{"body shape before field rules", "test_all", `[1]`, []string{"Idempotency-Key", long}, "invalid_request"},
		{"invalid key before look-ups", "test_all", map[string]any{"conversation_id": "conv_missing", "text": "x"}, []string{"Idempotency-Key", long}, "invalid_idempotency_key"},
	}
	for _, c := range cases {
		r := api.Do("POST", "/v1/messages", c.key, c.body, c.header...)
		if r.Code() != c.code {
			t.Errorf("%s: got %d %q, want %q: %s", c.name, r.Status, r.Code(), c.code, r.Raw)
		}
	}
}

// GET /v1/messaging-window on the injected clock (the window rule itself
// is tested in graph/send).
func TestMessagingWindowFollowsTheClock(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	window := func() map[string]any {
		return api.Want(api.Do("GET", "/v1/messaging-window?conversation_id=conv_wa_1h", "msg_read", nil), 200, "").Data()
	}
	// The customer last wrote at 11:00; free text is open until 11:00 tomorrow.
	w := window()
	if w["open"] != true || w["template_required"] != false || w["free_text_until"] != "2026-10-16T11:00:00.000Z" ||
		w["last_inbound_at"] != "2026-10-15T11:00:00.000Z" || w["channel"] != "whatsapp" {
		t.Errorf("window now: %v", w)
	}
	api.Clock.Set(resttest.Epoch.Add(23 * 3600e9)) // 11:00 tomorrow: 24 hours on
	if w := window(); w["open"] != false || w["template_required"] != true {
		t.Errorf("window after 24 hours: %v", w)
	}
	// A new message from the customer opens it again.
	api.Want(api.Do("POST", "/v1/test/inbound", "test_all", map[string]any{"channel": "whatsapp", "from": "+15550009002", "text": "back"}), 201, "")
	if w := window(); w["open"] != true || w["free_text_until"] != "2026-10-17T11:00:00.000Z" {
		t.Errorf("window after the customer wrote again: %v", w)
	}

	// Instagram has the same 24 hours and no templates.
	startConv(api, map[string]any{"channel": "instagram", "from": "1784000555"})
	api.Clock.Advance(24 * 3600e9)
	if w := api.Want(api.Do("GET", "/v1/messaging-window?channel=instagram&to=1784000555", "msg_read", nil), 200, "").Data(); w["open"] != false || w["template_required"] != false {
		t.Errorf("instagram window: %v", w)
	}
}

func TestMessagingWindowByRecipient(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	get := func(key, query string) *resttest.Response {
		return api.Do("GET", "/v1/messaging-window?"+query, key, nil)
	}
	w := api.Want(get("test_all", "channel=whatsapp&to=%2B15550009001&whatsapp_account_id=wa_main"), 200, "").Data()
	if w["open"] != false || w["template_required"] != true || w["last_inbound_at"] != "2026-10-14T11:00:00.000Z" {
		t.Errorf("Olga's window: %v", w)
	}
	w = api.Want(get("test_all", "channel=whatsapp&to=%2B15550000000&whatsapp_account_id=wa_main"), 200, "").Data()
	if w["open"] != false || w["last_inbound_at"] != nil || w["free_text_until"] != nil {
		t.Errorf("window of a number that never wrote: %v", w)
	}
	w = api.Want(get("test_all", "channel=email&to=a@example.com"), 200, "").Data()
	if w["open"] != true || w["template_required"] != false {
		t.Errorf("email window: %v", w)
	}
	api.Want(get("test_all", "channel=whatsapp&to=%2B15550009001"), 400, "whatsapp_account_required")
	api.Want(get("test_all", "channel=whatsapp&to=5550009001&whatsapp_account_id=wa_main"), 400, "invalid_phone")
	api.Want(get("test_all", "conversation_id=conv_missing"), 404, "conversation_not_found")
	api.Want(get("test_all", "channel=website&to=v"), 400, "invalid_request")
	api.Want(get("contacts_read", "conversation_id=conv_wa_1h"), 403, "insufficient_scope")
	api.Want(get("wa_only", "channel=email&to=a@example.com"), 403, "channel_not_allowed")
	closed := api.Want(get("test_all", "conversation_id=conv_web_closed"), 200, "").Data()
	if closed["open"] != false || closed["channel"] != "website" {
		t.Errorf("closed website chat: %v", closed)
	}
}

// One comment rule over HTTP, for its status; the rules of comment replies
// are tested in graph/send.
func TestInstagramCommentReplies(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	comment := startConv(api, map[string]any{"channel": "instagram", "from": "1784000666", "comment": true, "text": "how much?"})
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": comment, "text": "price list", "reply_as": "dm"}), 201, "")
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": comment, "text": "again", "reply_as": "dm"}), 422, "private_reply_used")
}

func TestMarketingMessages(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	post := func(key string, body map[string]any) *resttest.Response {
		return api.Do("POST", "/v1/whatsapp/marketing-messages", key, body)
	}
	msg := api.Want(post("test_all", map[string]any{"to": "+15550104444", "whatsapp_account_id": "wa_main", "template": tpl("spring_sale", "20%")}), 201, "").Data()
	if msg["text"] != "Sale: 20% off" || msg["type"] != "template" || msg["status"] != "sent" || msg["direction"] != "outbound" {
		t.Errorf("marketing message %v", msg)
	}
	api.Want(post("test_all", map[string]any{"to": "+15550104444", "whatsapp_account_id": "wa_main", "text": "x"}), 400, "invalid_request")
	api.Want(post("msg_read", map[string]any{"to": "+15550104444"}), 403, "insufficient_scope")
}

func TestTemplatesAndSenders(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	names := func(r *resttest.Response) string {
		var out []string
		for _, item := range r.Items() {
			out = append(out, item.(map[string]any)["name"].(string))
		}
		return strings.Join(out, ",")
	}
	all := api.Want(api.Do("GET", "/v1/whatsapp/templates", "conv_read", nil), 200, "")
	if names(all) != "order_update,pending_notice,spring_sale" || all.Data()["has_more"] != false {
		t.Errorf("templates %s", all.Raw)
	}
	first := all.Items()[0].(map[string]any)
	if first["whatsapp_account_id"] != "wa_main" || first["category"] != "UTILITY" || first["status"] != "APPROVED" || first["body"] != "Order {{1}} shipped" || first["id"] == "" {
		t.Errorf("template item %v", first)
	}
	if got := names(api.Want(api.Do("GET", "/v1/whatsapp/templates?status=APPROVED&category=MARKETING", "test_all", nil), 200, "")); got != "spring_sale" {
		t.Errorf("filtered templates %q", got)
	}
	if got := names(api.Want(api.Do("GET", "/v1/whatsapp/templates", "web_second_only", nil), 200, "")); got != "" {
		t.Errorf("a key without wa_main sees %q", got)
	}
	api.Want(api.Do("GET", "/v1/whatsapp/templates?whatsapp_account_id=wa_main", "web_second_only", nil), 403, "website_not_allowed")
	api.Want(api.Do("GET", "/v1/whatsapp/templates?status=LIVE", "test_all", nil), 400, "invalid_request")

	senders := api.Want(api.Do("GET", "/v1/email/senders", "conv_read", nil), 200, "").Items()
	if len(senders) != 2 {
		t.Fatalf("senders %v", senders)
	}
	support := senders[0].(map[string]any)
	if support["id"] != "support" || support["address"] != "support@verified.test" || support["domain"] != "verified.test" ||
		support["verified"] != true || support["website_id"] != "web_main" {
		t.Errorf("sender %v", support)
	}
	if hello := senders[1].(map[string]any); hello["verified"] != false {
		t.Errorf("sender %v", hello)
	}
	if got := api.Want(api.Do("GET", "/v1/email/senders", "web_main_only", nil), 200, "").Items(); len(got) != 1 {
		t.Errorf("web_main_only senders %v", got)
	}
}

func TestGetMessageVisibility(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	id := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "x"}), 201, "").Data()["id"].(string)
	api.Want(api.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "")
	api.Want(api.Do("GET", "/v1/messages/"+id, "live_all", nil), 404, "message_not_found")
	api.Want(api.Do("GET", "/v1/messages/"+id, "web_second_only", nil), 404, "message_not_found")
	api.Want(api.Do("GET", "/v1/messages/msg_missing", "test_all", nil), 404, "message_not_found")
	api.Want(api.Do("GET", "/v1/messages/"+id, "msg_write", nil), 403, "insufficient_scope")
}

// Concurrent first sends to one new customer make one contact and one
// conversation between them.
func TestConcurrentSendsToANewCustomer(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	dbExec(t, api, `UPDATE workspaces SET rate_per_second = 1000, rate_per_minute = 100000 WHERE id = 'ws_main'`)
	var wg sync.WaitGroup
	convs := make([]any, 8)
	for i := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sendMsg(api, "test_all", map[string]any{"channel": "whatsapp", "to": "+15550108888",
				"whatsapp_account_id": "wa_main", "template": tpl("order_update", "C")})
			if r.Status != 201 {
				t.Errorf("send %d: %d %s", i, r.Status, r.Raw)
				return
			}
			convs[i] = r.Data()["conversation_id"]
		}()
	}
	wg.Wait()
	for _, c := range convs {
		if c != convs[0] {
			t.Fatalf("conversations %v", convs)
		}
	}
	var contacts int
	if err := api.Store.DB.Get(&contacts, `SELECT count(*) FROM contacts WHERE phone = '+15550108888'`); err != nil || contacts != 1 {
		t.Errorf("%d contacts (%v)", contacts, err)
	}
	created := 0
	for _, e := range api.Events("ws_main") {
		if e.Type == "contact.created" || e.Type == "conversation.created" {
			created++
		}
	}
	if created != 2 {
		t.Errorf("%d contact.created and conversation.created events, want one of each", created)
	}
}
