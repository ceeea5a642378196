package mail_test

import (
	"os"
	"strings"
	"testing"
)

// dsnFor is the DSN of testdata naming id, reporting recipient failed
// with a permanent status; n keeps each DSN's Message-ID its own.
func dsnFor(t *testing.T, id, recipient, n string) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../channels/email/testdata/dsn.eml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(raw), "msg_PLACEHOLDER", id)
	s = strings.ReplaceAll(s, "gone@example.com", recipient)
	return []byte(strings.ReplaceAll(s, "dsn-1@", "dsn-"+n+"@"))
}

// sendTo sends a live email to address and returns the message and the
// envelope sender the relay got (its bounce address).
func sendTo(t *testing.T, api *liveEmail, to string) (map[string]any, string) {
	t.Helper()
	before := len(api.Sink.Mails())
	m := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": to, "from": "support@verified.test", "subject": "Hi", "text": "x"}), 201, "").Data()
	mails := api.Sink.Mails()
	if len(mails) != before+1 {
		t.Fatalf("the relay got %d mails, want %d", len(mails), before+1)
	}
	return m, mails[before].From
}

// Someone who received one of our mails knows its bounce address; a DSN
// they forge to it naming another contact neither fails the message nor
// suppresses anyone.
func TestForgedDSNNamingAnotherRecipientChangesNothing(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	sendTo(t, api, "victim@example.com") // the contact to be blocked
	mine, bounce := sendTo(t, api, "mallory@example.com")
	if err := deliver(t, api, addr, "", []string{bounce}, dsnFor(t, mine["id"].(string), "victim@example.com", "f1")); err != nil {
		t.Fatal(err)
	}
	if m := api.Do("GET", "/v1/messages/"+mine["id"].(string), "live_all", nil).Data(); m["status"] != "sent" {
		t.Errorf("a DSN naming another recipient failed the message: %v", m["delivery"])
	}
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "victim@example.com", "from": "support@verified.test", "subject": "Still there?", "text": "x"}), 201, "")
	// The same DSN naming the message's own recipient is believed.
	if err := deliver(t, api, addr, "", []string{bounce}, dsnFor(t, mine["id"].(string), "Mallory@example.com", "f2")); err != nil {
		t.Fatal(err)
	}
	if m := api.Do("GET", "/v1/messages/"+mine["id"].(string), "live_all", nil).Data(); m["status"] != "failed" {
		t.Errorf("a DSN naming the message's recipient did not fail it: %v", m)
	}
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "mallory@example.com", "from": "support@verified.test", "subject": "Again", "text": "x"}), 422, "recipient_suppressed")
}
