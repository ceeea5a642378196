package mail_test

import (
	"context"
	"errors"
	"net"
	"net/smtp"
	"net/textproto"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
)

// listen starts the inbound listener of api on loopback.
func listen(t *testing.T, api *liveEmail) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l := &email.Listener{Inbox: api.Resolver.Inbox, Hostname: "mx.msgsvc.test"}
	go func() { _ = l.Serve(ctx, ln) }()
	return ln.Addr().String()
}

// deliver sends raw into the listener with net/smtp and processes what it
// stored, as the job would.
func deliver(t *testing.T, api *liveEmail, addr, from string, to []string, raw []byte) error {
	t.Helper()
	if err := smtp.SendMail(addr, nil, from, to, raw); err != nil {
		return err
	}
	return api.Resolver.Mail.Sweep(t.Context(), -time.Hour)
}

func conversationOf(t *testing.T, api *liveEmail, address string) map[string]any {
	t.Helper()
	for _, c := range list(api.Do("GET", "/v1/conversations?channel=email&limit=100", "live_all", nil)) {
		if ct, _ := c["contact"].(map[string]any); ct != nil && ct["email"] == address {
			return c
		}
	}
	t.Fatalf("no live email conversation with %s", address)
	return nil
}

func TestInboundMailBecomesAMessage(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	err := smtp.SendMail(addr, nil, "x@example.com", []string{"nobody@verified.test"}, []byte("Subject: x\r\n\r\nx\r\n"))
	var tpErr *textproto.Error
	if !errors.As(err, &tpErr) || tpErr.Code != 550 || !strings.HasPrefix(tpErr.Msg, "5.1.1") {
		t.Fatalf("stranger: %v", err)
	}
	raw, _ := os.ReadFile("../../channels/email/testdata/attachments.eml")
	if err := deliver(t, api, addr, "ada@example.com", []string{"Support@verified.test"}, raw); err != nil {
		t.Fatal(err)
	}
	conv := conversationOf(t, api, "ada@example.com")
	if conv["subject"] != "Invoice" || conv["channel"] != "email" {
		t.Fatalf("conversation %v", conv)
	}
	msgs := list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil))
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	e, _ := m["email"].(map[string]any)
	atts, _ := m["attachments"].([]any)
	if m["text"] != "See the invoice attached." || m["html_raw"] != "<p>See the <i>invoice</i> attached.</p>" ||
		e["from"] != "ada@example.com" || len(atts) != 2 {
		t.Fatalf("message %v", m)
	}
	// The same mail again (a retried delivery) creates nothing.
	if err := deliver(t, api, addr, "ada@example.com", []string{"support@verified.test"}, raw); err != nil {
		t.Fatal(err)
	}
	if n := len(list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil))); n != 1 {
		t.Fatalf("a repeated mail made %d messages", n)
	}
}

func TestReplyThreadsAndReopens(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	sent := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "carol@example.com", "from": "support@verified.test", "subject": "Your refund", "text": "Done."}), 201, "").Data()
	convID := sent["conversation_id"].(string)
	api.Want(api.Do("PATCH", "/v1/conversations/"+convID, "live_all", map[string]any{"status": "closed"}), 200, "")
	raw := "From: carol@example.com\r\nTo: support@verified.test\r\nSubject: Re: Your refund\r\nMessage-ID: <r1@example.com>\r\n" +
		"In-Reply-To: <" + sent["id"].(string) + "@verified.test>\r\n\r\nThanks!\r\n"
	if err := deliver(t, api, addr, "carol@example.com", []string{"support@verified.test"}, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	conv := api.Do("GET", "/v1/conversations/"+convID, "live_all", nil).Data()
	if conv["status"] != "open" {
		t.Fatalf("not reopened: %v", conv)
	}
	msgs := list(api.Do("GET", "/v1/conversations/"+convID+"/messages", "live_all", nil))
	if len(msgs) != 2 || msgs[1]["text"] != "Thanks!" {
		t.Fatalf("messages %v", msgs)
	}
	// provider_message_id is the Message-ID; reply_to names our mail.
	replyTo, _ := msgs[1]["reply_to"].(map[string]any)
	if msgs[1]["provider_message_id"] != "r1@example.com" || replyTo == nil || replyTo["message_id"] != sent["id"] ||
		replyTo["provider_message_id"] != sent["id"].(string)+"@verified.test" {
		t.Fatalf("typed fields of the reply: %v %v", msgs[1]["provider_message_id"], msgs[1]["reply_to"])
	}
	// Our reply answers the customer's Message-ID.
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": convID, "text": "You're welcome."}), 201, "")
	last := api.Sink.Mails()[len(api.Sink.Mails())-1]
	if !strings.Contains(string(last.Data), "In-Reply-To: <r1@example.com>") || !strings.Contains(string(last.Data), "Subject: Re: Your refund") {
		t.Fatalf("reply headers:\n%s", last.Data)
	}
	// A mail naming nothing known starts its own conversation.
	raw = "From: carol@example.com\r\nTo: support@verified.test\r\nSubject: Another thing\r\nMessage-ID: <r2@example.com>\r\n\r\nHi\r\n"
	if err := deliver(t, api, addr, "carol@example.com", []string{"support@verified.test"}, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	if n := len(list(api.Do("GET", "/v1/conversations/"+convID+"/messages", "live_all", nil))); n != 3 {
		t.Fatalf("the unrelated mail joined the thread: %d messages", n)
	}
}

func TestBouncesFailAndSuppress(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	sent, bounce := sendTo(t, api, "gone@example.com")
	id := sent["id"].(string)
	dsn, _ := os.ReadFile("../../channels/email/testdata/dsn.eml")
	delayed := strings.ReplaceAll(strings.ReplaceAll(string(dsn), "msg_PLACEHOLDER", id), "Action: failed", "Action: delayed")
	delayed = strings.ReplaceAll(delayed, "dsn-1@", "dsn-0@")
	if err := deliver(t, api, addr, "", []string{bounce}, []byte(delayed)); err != nil {
		t.Fatal(err)
	}
	if m := api.Do("GET", "/v1/messages/"+id, "live_all", nil).Data(); m["status"] != "sent" {
		t.Fatalf("a delayed DSN changed the message: %v", m)
	}
	failed := strings.ReplaceAll(string(dsn), "msg_PLACEHOLDER", id)
	if err := deliver(t, api, addr, "", []string{bounce}, []byte(failed)); err != nil {
		t.Fatal(err)
	}
	m := api.Do("GET", "/v1/messages/"+id, "live_all", nil).Data()
	d, _ := m["delivery"].(map[string]any)
	e, _ := d["error"].(map[string]any)
	if m["status"] != "failed" || e["code"] != "bounced" || !strings.Contains(e["message"].(string), "5.1.1") || d["failed_at"] == nil {
		t.Fatalf("bounced message %v", m)
	}
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "gone@example.com", "from": "support@verified.test", "subject": "Again", "text": "x"}), 422, "recipient_suppressed")
	types := []string{}
	for _, ev := range api.Events("ws_main") {
		types = append(types, ev.Type)
	}
	if !strings.Contains(strings.Join(types, ","), "message.status") {
		t.Errorf("no message.status event: %v", types)
	}
}
