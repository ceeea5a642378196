package mail_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"
)

func TestLiveEmailSendGoesThroughRelaySigned(t *testing.T) {
	api := newLiveEmail(t)
	r := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "Ada@Example.com", "from": "support@verified.test", "subject": "Your order",
		"html": "<p>Hello <b>Ada</b></p>"}), 201, "")
	msg := r.Data()
	id := msg["id"].(string)
	if msg["status"] != "sent" {
		t.Fatalf("status %v", msg["status"])
	}
	mails := api.Sink.Mails()
	if len(mails) != 1 {
		t.Fatalf("%d mails at the relay", len(mails))
	}
	got := mails[0]
	if got.From != "bounces+"+id+"@verified.test" || !strings.EqualFold(strings.Join(got.To, ","), "ada@example.com") {
		t.Errorf("envelope %s -> %v", got.From, got.To)
	}
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(got.Data), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		if name != "msgsvc._domainkey.verified.test" {
			return nil, errors.New("no record")
		}
		return []string{api.TXT}, nil
	}})
	if err != nil || len(vs) != 1 || vs[0].Err != nil {
		t.Fatalf("dkim: %v %v", err, vs)
	}
	h, err := mail.CreateReader(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	if h.Header.Get("Message-Id") != "<"+id+"@verified.test>" {
		t.Errorf("Message-ID %q", h.Header.Get("Message-Id"))
	}
	unsub := h.Header.Get("List-Unsubscribe")
	if !strings.HasPrefix(unsub, "<https://api.msgsvc.test/unsubscribe/") || h.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe %q", unsub)
	}
	d, _ := api.Do("GET", "/v1/messages/"+id, "live_all", nil).Data()["delivery"].(map[string]any)
	if d["provider_message_id"] != "<"+id+"@verified.test>" {
		t.Errorf("delivery %v", d)
	}
}

func TestLiveEmailRelayRefusals(t *testing.T) {
	api := newLiveEmail(t)
	api.Sink.RefuseRcpt("gone@example.com", 550, smtp.EnhancedCode{5, 1, 1}, "no such user")
	r := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "gone@example.com", "from": "support@verified.test", "subject": "Hi", "text": "x"}), 422, "recipient_unreachable")
	if !strings.Contains(string(r.Raw), "550 5.1.1") {
		t.Errorf("the relay's answer is not in the message: %s", r.Raw)
	}
	api.Sink.RefuseRcpt("busy@example.com", 421, smtp.EnhancedCode{4, 7, 0}, "slow down")
	r = api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "busy@example.com", "from": "support@verified.test", "subject": "Hi", "text": "x"}), 429, "channel_rate_limited")
	if r.Header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if n := len(api.Sink.Mails()); n != 0 {
		t.Errorf("%d mails went out", n)
	}
}
