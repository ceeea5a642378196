package email_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
)

// plainRelay is a relay stand-in over plain text that takes AUTH there (so
// that its transcript can be read), with its relay config.
func plainRelay(t *testing.T, sink *emailtest.Sink, raw string) *email.Relay {
	t.Helper()
	sink.Server.AllowInsecureAuth = true
	sink.Start(t)
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	relay, err := email.ParseRelay(strings.ReplaceAll(raw, "ADDR", sink.Addr) + sep + "tls=none")
	if err != nil {
		t.Fatal(err)
	}
	relay.Hostname = "mx.acme.test"
	return relay
}

func wantTranscript(t *testing.T, sink *emailtest.Sink, want ...string) {
	t.Helper()
	got := sink.Transcripts()
	if len(got) != len(want) {
		t.Fatalf("%d connections, want %d:\n%s", len(got), len(want), strings.Join(got, "\n----\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("connection %d:\n%s\nwant:\n%s", i, got[i], want[i])
		}
	}
}

// The envelope sender is at the return path; the relay sees exactly this.
func TestTranscriptWithReturnPath(t *testing.T) {
	sink := emailtest.NewSink()
	relay := plainRelay(t, sink, "smtp://ADDR")
	m := message("<p>x</p>", nil)
	m.Email.ReturnPath = "bounces.acme.test"
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, sink, strings.Join([]string{
		"S: 220 relay.test ESMTP Service Ready",
		"C: EHLO mx.acme.test",
		"S: 250-Hello mx.acme.test",
		"S: 250-PIPELINING",
		"S: 250-8BITMIME",
		"S: 250-ENHANCEDSTATUSCODES",
		"S: 250-CHUNKING",
		"S: 250-AUTH PLAIN",
		"S: 250 SIZE",
		"C: MAIL FROM:<bounces+msg_01TEST@bounces.acme.test> BODY=8BITMIME",
		"S: 250 2.0.0 Roger, accepting mail from <bounces+msg_01TEST@bounces.acme.test>",
		"C: RCPT TO:<ada@example.com>",
		"S: 250 2.0.0 I'll make sure <ada@example.com> gets this",
		"C: RCPT TO:<boss@example.com>",
		"S: 250 2.0.0 I'll make sure <boss@example.com> gets this",
		"C: DATA",
		"S: 354 Go ahead. End your data with <CR><LF>.<CR><LF>",
		"C: <data>",
		"C: .",
		"S: 250 2.0.0 OK: queued",
		"C: QUIT",
		"S: 221 2.0.0 Bye",
	}, "\n"))
}

// Microsoft 365 offers AUTH LOGIN and XOAUTH2, not PLAIN: msgsvc answers
// "Username:" and "Password:" (base64, draft-murchison-sasl-login).
func TestTranscriptAuthLogin(t *testing.T) {
	sink := emailtest.NewSink()
	sink.OfferAuth("LOGIN", "XOAUTH2")
	sink.RequireAuth("mailer@acme.test", "s3cret")
	relay := plainRelay(t, sink, "smtp://ADDR")
	relay.Username, relay.Password = "mailer@acme.test", "s3cret" // ParseRelay refuses credentials in plain text
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	got := sink.Transcripts()
	want := strings.Join([]string{
		"S: 250 SIZE",
		"C: AUTH LOGIN",
		"S: 334 VXNlcm5hbWU6",
		"C: bWFpbGVyQGFjbWUudGVzdA==",
		"S: 334 UGFzc3dvcmQ6",
		"C: czNjcmV0",
		"S: 235 2.0.0 Authentication succeeded",
		"C: MAIL FROM:<bounces+msg_01TEST@acme.test> BODY=8BITMIME",
	}, "\n")
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Fatalf("transcript:\n%s\nwant within it:\n%s", strings.Join(got, "\n----\n"), want)
	}
}

const sesID = "0100018c1f7e3f3a-8b7f2c1d-4e5f-4a6b-9c8d-7e6f5a4b3c2d-000000"

// sesSend sends a signed message through an SES stand-in; rewrites is the
// relay's message_id= option.
func sesSend(t *testing.T, rewrites string) (*emailtest.Sink, *channels.Receipt, string) {
	t.Helper()
	sink := emailtest.NewSink()
	sink.ActAsSES(sesID)
	relay := plainRelay(t, sink, "smtp://ADDR?message_id="+rewrites)
	keyPEM, txt := emailtest.RSAKey(t)
	receipt, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second, Now: func() time.Time { return date }}).Send(
		context.Background(), message("<p>x</p>", &channels.DKIMKey{Selector: "msgsvc", PrivateKeyPEM: keyPEM}))
	if err != nil {
		t.Fatal(err)
	}
	return sink, receipt, txt
}

func dkimResult(t *testing.T, raw []byte, txt string) *dkim.Verification {
	t.Helper()
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		if name != "msgsvc._domainkey.acme.test" {
			return nil, errors.New("no record " + name)
		}
		return []string{txt}, nil
	}})
	if err != nil || len(vs) != 1 {
		t.Fatalf("dkim: %v, %d signatures", err, len(vs))
	}
	return vs[0]
}

// Amazon SES replaces Message-ID and Date and answers "250 Ok {id}": the
// signature leaves both out (so it still verifies on the mail as SES sends
// it), References end with our own id (so a reply still names it), and
// the receipt records SES's id beside ours.
func TestRelayRewritingMessageID(t *testing.T) {
	sink, receipt, txt := sesSend(t, "rewritten")
	if strings.Join(receipt.ProviderIDs, " ") != "<msg_01TEST@acme.test> "+sesID {
		t.Fatalf("receipt %v", receipt.ProviderIDs)
	}
	got := sink.Mails()[0].Data
	h, err := mail.CreateReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if h.Header.Get("Message-Id") != "<"+sesID+"@email.amazonses.com>" {
		t.Fatalf("the stand-in did not rewrite Message-ID: %q", h.Header.Get("Message-Id"))
	}
	if refs := h.Header.Get("References"); refs != "<A1@example.com> <CAF00@mail.example.com> <msg_01TEST@acme.test>" {
		t.Errorf("References %q", refs)
	}
	v := dkimResult(t, got, txt)
	if v.Err != nil {
		t.Fatalf("the signature fails on the mail as SES sends it: %v", v.Err)
	}
	signed := ":" + strings.ToLower(strings.Join(v.HeaderKeys, ":")) + ":"
	if strings.Contains(signed, ":message-id:") || strings.Contains(signed, ":date:") || strings.Count(signed, ":from:") != 2 {
		t.Errorf("h= %s", signed)
	}
	tr := sink.Transcripts()
	if len(tr) != 1 || !strings.HasSuffix(tr[0], "C: .\nS: 250 Ok "+sesID+"\nC: QUIT\nS: 221 2.0.0 Bye") {
		t.Errorf("transcript:\n%s", strings.Join(tr, "\n----\n"))
	}
}

// The same relay taken for one that keeps Message-ID: SES's rewrite breaks
// the signature (what message_id=rewritten is for).
func TestRelayRewritingMessageIDUnannounced(t *testing.T) {
	sink, receipt, txt := sesSend(t, "kept")
	if len(receipt.ProviderIDs) != 2 || receipt.ProviderIDs[1] != sesID {
		t.Fatalf("receipt %v", receipt.ProviderIDs)
	}
	if v := dkimResult(t, sink.Mails()[0].Data, txt); v.Err == nil {
		t.Fatal("a signature over the Message-ID SES replaced still verifies")
	}
}

func TestRelayID(t *testing.T) {
	for reply, want := range map[string]string{
		"Ok " + sesID:                         sesID,
		"OK 0000014ab5ea1b4b-5a1b8c7d-000000": "0000014ab5ea1b4b-5a1b8c7d-000000",
		"2.0.0 OK: queued":                    "",
		"2.0.0 Ok: queued as 4XyZ":            "",
		"Ok":                                  "",
		"Ok <x@y>":                            "",
	} {
		if got := email.RelayID(reply); got != want {
			t.Errorf("RelayID(%q) = %q, want %q", reply, got, want)
		}
	}
}

func TestParseRelayMessageIDOption(t *testing.T) {
	for raw, want := range map[string]bool{
		"smtp://u:p@email-smtp.eu-west-1.amazonaws.com:587":                 true,
		"smtp://u:p@email-smtp.eu-west-1.amazonaws.com:587?message_id=kept": false,
		"smtp://u:p@smtp.office365.com:587":                                 false,
		"smtp://u:p@relay.example.com:587?message_id=rewritten":             true,
	} {
		r, err := email.ParseRelay(raw)
		if err != nil || r.RewritesMessageID != want {
			t.Errorf("%s: %v %v", raw, r, err)
		}
	}
	if _, err := email.ParseRelay("smtp://relay.example.com?message_id=maybe"); err == nil {
		t.Error("message_id=maybe accepted")
	}
}
