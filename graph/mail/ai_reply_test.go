package mail_test

import (
	"bytes"
	"testing"

	"github.com/emersion/go-message/mail"
)

// TestAIRepliesByEmail: the AI's answer to a mail goes out through the relay
// from the account's address, Subject "Re: " and the thread's subject
// (never "Re: Re: "), In-Reply-To the customer's Message-ID and References
// the thread's, marked Auto-Submitted: auto-replied.
func TestAIRepliesByEmail(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	if _, err := api.Store.DB.Exec(`INSERT INTO knowledge_entries (id, workspace_id, question, answer, created_at, updated_at) VALUES
		('kb_parcel', 'ws_main', 'Where is my parcel?', 'Parcels arrive within two business days.', now(), now())`); err != nil {
		t.Fatal(err)
	}
	used := func() any {
		return api.Want(api.Do("GET", "/v1/usage", "live_all", nil), 200, "").Data()["messages_used"]
	}
	usedBefore := used()
	for _, c := range []struct{ from, subject, id string }{
		{"ada@example.com", "Where is my parcel?", "q1@example.com"},
		{"bea@example.com", "Re: Where is my parcel?", "q2@example.com"},
	} {
		raw := "From: " + c.from + "\r\nTo: support@verified.test\r\nSubject: " + c.subject + "\r\nMessage-ID: <" + c.id +
			">\r\nReferences: <earlier@example.com>\r\n\r\nWhere is my parcel?\r\n"
		if err := deliver(t, api, addr, c.from, []string{"support@verified.test"}, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		before := len(api.Sink.Mails())
		if err := api.Resolver.AI.Dispatch(t.Context()); err != nil {
			t.Fatal(err)
		}
		mails := api.Sink.Mails()
		if len(mails) != before+1 {
			t.Fatalf("%s: %d mails at the relay, want %d", c.from, len(mails), before+1)
		}
		r, err := mail.CreateReader(bytes.NewReader(mails[before].Data))
		if err != nil {
			t.Fatal(err)
		}
		from, _ := r.Header.AddressList("From")
		subject, _ := r.Header.Subject()
		inReplyTo, _ := r.Header.MsgIDList("In-Reply-To")
		refs, _ := r.Header.MsgIDList("References")
		// RFC 3834: the customer's autoresponder must not answer the AI.
		if got := r.Header.Get("Auto-Submitted"); got != "auto-replied" {
			t.Errorf("%s: Auto-Submitted %q, want auto-replied", c.from, got)
		}
		if len(from) != 1 || from[0].Address != "support@verified.test" || subject != "Re: Where is my parcel?" ||
			len(inReplyTo) != 1 || inReplyTo[0] != c.id || len(refs) == 0 || refs[len(refs)-1] != c.id {
			t.Errorf("%s: From %v Subject %q In-Reply-To %v References %v", c.from, from, subject, inReplyTo, refs)
		}
	}
	// AI replies go through the live pipeline but use no API quota.
	if after := used(); after != usedBefore {
		t.Errorf("two AI replies moved messages_used from %v to %v", usedBefore, after)
	}
}
