package rest_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func inbound(api *resttest.API, key string, body map[string]any) *resttest.Response {
	return api.Do("POST", "/v1/test/inbound", key, body)
}

func convOf(r *resttest.Response) map[string]any { return r.Data()["conversation"].(map[string]any) }

func TestInboundOnEveryChannel(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	senders := map[string]string{"website": "visitor-7", "whatsapp": "+15550100007", "instagram": "17840000007", "email": "Kim@Example.com"}
	for channel, from := range senders {
		first := api.Want(inbound(api, "test_all", map[string]any{"channel": channel, "from": from, "name": "Kim", "text": "one"}), 201, "")
		second := api.Want(inbound(api, "test_all", map[string]any{"channel": channel, "from": from, "text": "two"}), 201, "")
		if first.Data()["livemode"] != false {
			t.Errorf("%s: livemode %v", channel, first.Data()["livemode"])
		}
		c1, c2 := convOf(first), convOf(second)
		if c1["id"] != c2["id"] {
			t.Errorf("%s: the same sender started two conversations", channel)
		}
		msg := second.Data()["message"].(map[string]any)
		if msg["direction"] != "inbound" || msg["status"] != "received" || msg["text"] != "two" || msg["delivery"] != nil {
			t.Errorf("%s: message %v", channel, msg)
		}
		conv := api.Want(api.Do("GET", "/v1/conversations/"+c1["id"].(string), "test_all", nil), 200, "").Data()
		if conv["message_count"] != float64(2) || conv["channel"] != channel || conv["mode"] != "ai" || conv["website_id"] != "web_main" {
			t.Errorf("%s: conversation %v", channel, conv)
		}
		if contact := conv["contact"].(map[string]any); contact["name"] != "Kim" {
			t.Errorf("%s: contact %v", channel, contact)
		}
		if channel == "email" {
			headers := msg["email"].(map[string]any)
			if headers["from"] != from || headers["to"].([]any)[0] != "support@verified.test" {
				t.Errorf("email headers %v", headers)
			}
		}
	}
}

func TestInboundRulesAndErrors(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	cases := []struct {
		name, key string
		body      map[string]any
		status    int
		code      string
	}{
		{"live key", "live_all", map[string]any{"channel": "website", "from": "v", "text": "hi"}, 403, "test_key_required"},
		// A simulated customer message writes a conversation and a
		// message: a read-only key may not make one.
		{"read-only key", "conv_read", map[string]any{"channel": "website", "from": "v", "text": "hi"}, 403, "insufficient_scope"},
		{"contacts key", "contacts_write", map[string]any{"channel": "website", "from": "v", "text": "hi"}, 403, "insufficient_scope"},
		{"messages:write key", "msg_write", map[string]any{"channel": "website", "from": "v-write", "text": "hi"}, 201, ""},
		{"unknown channel", "test_all", map[string]any{"channel": "sms", "from": "v", "text": "hi"}, 400, "invalid_request"},
		{"no from", "test_all", map[string]any{"channel": "website", "text": "hi"}, 400, "invalid_request"},
		{"no text", "test_all", map[string]any{"channel": "website", "from": "v"}, 400, "invalid_request"},
		{"comment off instagram", "test_all", map[string]any{"channel": "website", "from": "v", "text": "hi", "comment": true}, 400, "invalid_request"},
		{"whatsapp without country code", "test_all", map[string]any{"channel": "whatsapp", "from": "5550100", "text": "hi"}, 400, "invalid_phone"},
		{"email that is no address", "test_all", map[string]any{"channel": "email", "from": "nobody", "text": "hi"}, 400, "invalid_email"},
		{"channel outside the key", "wa_only", map[string]any{"channel": "website", "from": "v", "text": "hi"}, 403, "channel_not_allowed"},
		{"account on a website outside the key", "web_main_only", map[string]any{"channel": "whatsapp", "from": "+15550100008", "text": "hi", "account_id": "wa_external"}, 403, "website_not_allowed"},
		{"no usable account on the key's website", "web_second_only", map[string]any{"channel": "instagram", "from": "1784", "text": "hi"}, 403, "website_not_allowed"},
		{"unknown account", "test_all", map[string]any{"channel": "whatsapp", "from": "+15550100008", "text": "hi", "account_id": "wa_nope"}, 400, "invalid_request"},
		{"workspace without the channel", "other_test", map[string]any{"channel": "email", "from": "a@b.test", "text": "hi"}, 400, "invalid_request"},
	}
	for _, c := range cases {
		r := inbound(api, c.key, c.body)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s: got %d %q, want %d %q: %s", c.name, r.Status, r.Code(), c.status, c.code, r.Raw)
		}
	}
}

func TestInboundReopensOrStartsAgain(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	// A closed WhatsApp conversation reopens with the customer's message.
	wa := convOf(inbound(api, "test_all", map[string]any{"channel": "whatsapp", "from": "+15550100009", "text": "hi"}))["id"].(string)
	api.Want(patchConv(api, wa, map[string]any{"status": "closed"}), 200, "")
	again := convOf(api.Want(inbound(api, "test_all", map[string]any{"channel": "whatsapp", "from": "+15550100009", "text": "back"}), 201, ""))
	if again["id"] != wa || again["status"] != "open" {
		t.Errorf("whatsapp after close: %v", again)
	}
	// A closed website chat stays closed; the visitor starts a new one.
	web := convOf(inbound(api, "test_all", map[string]any{"channel": "website", "from": "visitor-9", "text": "hi"}))["id"].(string)
	api.Want(patchConv(api, web, map[string]any{"status": "closed"}), 200, "")
	next := convOf(api.Want(inbound(api, "test_all", map[string]any{"channel": "website", "from": "visitor-9", "text": "again"}), 201, ""))
	if next["id"] == web {
		t.Error("a closed website chat was continued")
	}
	old := api.Want(api.Do("GET", "/v1/conversations/"+web, "test_all", nil), 200, "").Data()
	if old["status"] != "closed" {
		t.Errorf("old website chat is %v", old["status"])
	}
	// Instagram comments and DMs of the same user are separate threads.
	dm := convOf(inbound(api, "test_all", map[string]any{"channel": "instagram", "from": "17841234", "text": "dm"}))["id"]
	comment := convOf(inbound(api, "test_all", map[string]any{"channel": "instagram", "from": "17841234", "text": "nice post", "comment": true}))["id"]
	if dm == comment {
		t.Error("an Instagram comment joined the DM conversation")
	}
}

func TestInboundExternalModeWhenProcessingIsOff(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	wa := convOf(api.Want(inbound(api, "test_all", map[string]any{"channel": "whatsapp", "from": "+15550100010", "text": "hi", "account_id": "wa_external"}), 201, ""))
	if wa["mode"] != "external" {
		t.Errorf("wa_external conversation mode %v", wa["mode"])
	}
	// The email domain of hello@ has processing off.
	mail := convOf(api.Want(inbound(api, "web_second_only", map[string]any{"channel": "email", "from": "c@d.test", "text": "hi"}), 201, ""))
	if mail["mode"] != "external" {
		t.Errorf("unverified.test conversation mode %v", mail["mode"])
	}
	// Reopening keeps it external: the service does not process that account.
	id := wa["id"].(string)
	api.Want(patchConv(api, id, map[string]any{"status": "closed"}), 200, "")
	if got := api.Want(patchConv(api, id, map[string]any{"status": "open"}), 200, "").Data()["mode"]; got != "external" {
		t.Errorf("reopened external conversation mode %v", got)
	}
}

func TestInboundStopOptsOutOfWhatsapp(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Inbound("whatsapp", "+15550100011", "hello")
	api.Inbound("whatsapp", "+15550100011", " Stop ")
	r := api.Want(api.Do("GET", "/v1/contacts?phone=%2B15550100011", "test_all", nil), 200, "")
	contact := r.Items()[0].(map[string]any)
	if contact["opt_outs"].(map[string]any)["whatsapp"] != true {
		t.Errorf("opt_outs after STOP: %v", contact["opt_outs"])
	}
	api.Inbound("whatsapp", "+15550100012", "please stop sending")
	r = api.Want(api.Do("GET", "/v1/contacts?phone=%2B15550100012", "test_all", nil), 200, "")
	if r.Items()[0].(map[string]any)["opt_outs"].(map[string]any)["whatsapp"] != false {
		t.Error("a sentence containing stop opted out")
	}
}

func TestInboundRecordsEventsInOrder(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	data := api.Inbound("whatsapp", "+15550100013", "hi")
	api.Inbound("whatsapp", "+15550100013", "again")
	var types []string
	for _, e := range api.Events("ws_main") {
		types = append(types, e.Type)
		if e.Envelope["livemode"] != false {
			t.Errorf("sandbox event with livemode %v", e.Envelope["livemode"])
		}
	}
	want := []string{"contact.created", "conversation.created", "message.received", "message.received"}
	if len(types) != len(want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events %v, want %v", types, want)
		}
	}
	msg := api.Events("ws_main")[2].Envelope
	if msg["channel"] != "whatsapp" || msg["website_id"] != "web_main" || msg["data"].(map[string]any)["id"] != data["message"].(map[string]any)["id"] {
		t.Errorf("message.received envelope %v", msg)
	}
}

// TestConcurrentInboundFromANewSender: parallel first messages of one sender
// make one contact and one conversation, and count every message.
func TestConcurrentInboundFromANewSender(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	const n = 10
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := inbound(api, "test_all", map[string]any{"channel": "whatsapp", "from": "+15550100099", "text": fmt.Sprintf("m%d", i)})
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 201 {
			t.Errorf("message %d answered %d", i, s)
		}
	}
	var contacts, convs, count int
	db := api.Store.DB
	if err := db.Get(&contacts, `SELECT count(*) FROM contacts WHERE phone = '+15550100099'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&convs, `SELECT count(*) FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.phone = '+15550100099'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&count, `SELECT coalesce(sum(message_count), 0) FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.phone = '+15550100099'`); err != nil {
		t.Fatal(err)
	}
	if contacts != 1 || convs != 1 || count != n {
		t.Errorf("%d contacts, %d conversations, message_count %d; want 1, 1, %d", contacts, convs, count, n)
	}
}
