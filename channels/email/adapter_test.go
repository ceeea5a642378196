package email_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gomessage "github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

var date = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func ptr(s string) *string { return &s }

func message(html string, dkimKey *channels.DKIMKey) *channels.Message {
	return &channels.Message{ID: "msg_01TEST", Livemode: true, Channel: "email", To: "ada@example.com",
		HTML: &html, Attachments: []channels.File{{ID: "file_1", Filename: "invoice.pdf",
			ContentType: "application/pdf", Size: 9, Content: []byte("%PDF-1.4\n")}},
		Email: &channels.Email{From: "support@acme.test", To: []string{"ada@example.com"},
			Cc: []string{"boss@example.com"}, Subject: "Your order ✓", Domain: "acme.test",
			InReplyTo: "CAF00@mail.example.com", References: []string{"A1@example.com", "CAF00@mail.example.com"},
			UnsubscribeURL: "https://api.acme.test/unsubscribe/tok123", DKIM: dkimKey}}
}

func adapter(sink *emailtest.Sink) *email.Adapter {
	return &email.Adapter{Relay: &email.Relay{Addr: sink.Addr, TLS: email.None, Hostname: "msgsvc.test"},
		Now: func() time.Time { return date }, Timeout: 5 * time.Second}
}

func TestSendThroughRelaySignedAndStructured(t *testing.T) {
	sink := emailtest.NewSink().Start(t)
	keyPEM, txt := emailtest.RSAKey(t)
	m := message(`<p>Hello <b>Ada</b>, see <a href="https://acme.test/o/1">your order</a>.</p><script>x()</script>`,
		&channels.DKIMKey{Selector: "msgsvc", PrivateKeyPEM: keyPEM})
	receipt, err := adapter(sink).Send(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(receipt.ProviderIDs) != 1 || receipt.ProviderIDs[0] != "<msg_01TEST@acme.test>" {
		t.Fatalf("receipt %v", receipt.ProviderIDs)
	}
	mails := sink.Mails()
	if len(mails) != 1 {
		t.Fatalf("%d mails at the relay", len(mails))
	}
	got := mails[0]
	if got.From != "bounces+msg_01TEST@acme.test" {
		t.Errorf("envelope sender %q", got.From)
	}
	if strings.Join(got.To, ",") != "ada@example.com,boss@example.com" {
		t.Errorf("envelope recipients %v", got.To)
	}
	verifyDKIM(t, got.Data, "msgsvc._domainkey.acme.test", txt)
	r, err := mail.CreateReader(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header
	want := map[string]string{"Message-Id": "<msg_01TEST@acme.test>", "In-Reply-To": "<CAF00@mail.example.com>",
		"References":       "<A1@example.com> <CAF00@mail.example.com>",
		"List-Unsubscribe": "<https://api.acme.test/unsubscribe/tok123>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		// A person's reply through the API is not automatic (RFC 3834).
		"Auto-Submitted": ""}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	if subj, _ := h.Subject(); subj != "Your order ✓" {
		t.Errorf("Subject %q", subj)
	}
	if d, err := h.Date(); err != nil || !d.Equal(date) {
		t.Errorf("Date %v %v", d, err)
	}
	if ct, _, _ := h.ContentType(); ct != "multipart/mixed" {
		t.Errorf("top level %s, want multipart/mixed", ct)
	}
	checkParts(t, got.Data)
}

// checkParts walks the MIME tree: multipart/alternative (text/plain made
// from the HTML, then text/html) inside multipart/mixed, then the PDF.
func checkParts(t *testing.T, raw []byte) {
	t.Helper()
	e, err := gomessage.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mr := e.MultipartReader()
	alt, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if ct, _, _ := alt.Header.ContentType(); ct != "multipart/alternative" {
		t.Fatalf("first part %s", ct)
	}
	ar := alt.MultipartReader()
	plain, _ := ar.NextPart()
	text, _ := io.ReadAll(plain.Body)
	if ct, _, _ := plain.Header.ContentType(); ct != "text/plain" || !strings.Contains(string(text), "Hello Ada, see your order (https://acme.test/o/1).") ||
		strings.Contains(string(text), "<") || strings.Contains(string(text), "x()") {
		t.Errorf("text part %s %q", ct, text)
	}
	htmlPart, _ := ar.NextPart()
	body, _ := io.ReadAll(htmlPart.Body)
	if ct, _, _ := htmlPart.Header.ContentType(); ct != "text/html" || !strings.Contains(string(body), "<b>Ada</b>") {
		t.Errorf("html part %s %q", ct, body)
	}
	att, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	content, _ := io.ReadAll(att.Body)
	_, params, _ := att.Header.ContentDisposition()
	if ct, _, _ := att.Header.ContentType(); ct != "application/pdf" || params["filename"] != "invoice.pdf" || string(content) != "%PDF-1.4\n" {
		t.Errorf("attachment %s %v %q", ct, params, content)
	}
	if _, err := mr.NextPart(); !errors.Is(err, io.EOF) {
		t.Errorf("more parts than expected: %v", err)
	}
}

func verifyDKIM(t *testing.T, raw []byte, name, txt string) {
	t.Helper()
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: func(domain string) ([]string, error) {
		if domain != name {
			return nil, errors.New("no such record " + domain)
		}
		return []string{txt}, nil
	}})
	if err != nil || len(vs) != 1 {
		t.Fatalf("dkim: %v, %d signatures", err, len(vs))
	}
	if vs[0].Err != nil {
		t.Fatalf("dkim signature does not verify: %v", vs[0].Err)
	}
	signed := strings.ToLower(strings.Join(vs[0].HeaderKeys, ":"))
	for _, k := range []string{"from", "to", "subject", "date", "message-id", "list-unsubscribe", "list-unsubscribe-post"} {
		if !strings.Contains(":"+signed+":", ":"+k+":") {
			t.Errorf("h= %s lacks %s", signed, k)
		}
	}
	if !strings.Contains(string(raw), "c=relaxed/relaxed") {
		t.Error("not relaxed/relaxed")
	}
}

func TestSendSignsWithEd25519(t *testing.T) {
	sink := emailtest.NewSink().Start(t)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	m := message("<p>hi</p>", &channels.DKIMKey{Selector: "ed", PrivateKeyPEM: keyPEM})
	if _, err := adapter(sink).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	verifyDKIM(t, sink.Mails()[0].Data, "ed._domainkey.acme.test", "v=DKIM1; k=ed25519; p="+base64.StdEncoding.EncodeToString(pub))
}

func TestSendWithoutKeyIsUnsignedAndTextOnly(t *testing.T) {
	sink := emailtest.NewSink().Start(t)
	m := message("", nil)
	m.HTML, m.Text, m.Attachments = nil, ptr("Plain words."), nil
	if _, err := adapter(sink).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	raw := string(sink.Mails()[0].Data)
	if strings.Contains(raw, "DKIM-Signature") || strings.Contains(raw, "text/html") || !strings.Contains(raw, "Plain words.") {
		t.Errorf("mail:\n%s", raw)
	}
}

func TestBadDKIMKeySendsNothing(t *testing.T) {
	sink := emailtest.NewSink().Start(t)
	m := message("<p>x</p>", &channels.DKIMKey{Selector: "s", PrivateKeyPEM: "not a key"})
	_, err := adapter(sink).Send(context.Background(), m)
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || strings.Contains(r.Reason, "not a key") {
		t.Fatalf("refusal %v", err)
	}
	if len(sink.Mails()) != 0 {
		t.Fatal("an unsigned mail went out")
	}
}

func TestRelayRefusalsMap(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*emailtest.Sink)
		code  apierr.Code
		retry time.Duration
		in    string
	}{
		{"RCPT 550", func(s *emailtest.Sink) {
			s.RefuseRcpt("ada@example.com", 550, smtp.EnhancedCode{5, 1, 1}, "no such user")
		},
			apierr.RecipientUnreachable, 0, "550 5.1.1: no such user"},
		{"RCPT 421", func(s *emailtest.Sink) { s.RefuseRcpt("ada@example.com", 421, smtp.EnhancedCode{4, 7, 0}, "slow down") },
			apierr.ChannelRateLimited, 60 * time.Second, "421 4.7.0"},
		{"RCPT 451", func(s *emailtest.Sink) { s.RefuseRcpt("boss@example.com", 451, smtp.EnhancedCode{4, 3, 0}, "later") },
			apierr.ChannelRateLimited, 60 * time.Second, "451"},
		{"DATA 554", func(s *emailtest.Sink) {
			s.RefuseData(&smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "content rejected"})
		}, apierr.InvalidRequest, 0, "554 5.6.0"},
		// SES refuses an unverified sender at the end of the data.
		{"DATA 554 5.7.1", func(s *emailtest.Sink) {
			s.RefuseData(&smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Message rejected: Email address is not verified."})
		}, apierr.ChannelRestricted, 0, "554 5.7.1"},
		{"RCPT 452", func(s *emailtest.Sink) {
			s.RefuseRcpt("ada@example.com", 452, smtp.EnhancedCode{4, 5, 3}, "too many recipients")
		},
			apierr.ChannelRateLimited, 60 * time.Second, "452 4.5.3"},
		{"DATA 450", func(s *emailtest.Sink) {
			s.RefuseData(&smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 2, 0}, Message: "mailbox busy"})
		}, apierr.ChannelRateLimited, 60 * time.Second, "450"},
		{"DATA 454", func(s *emailtest.Sink) {
			s.RefuseData(&smtp.SMTPError{Code: 454, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "temporary failure"})
		}, apierr.ChannelRateLimited, 60 * time.Second, "454"},
		{"DATA 451", func(s *emailtest.Sink) {
			s.RefuseData(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
		}, apierr.ChannelRateLimited, 60 * time.Second, "451"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := emailtest.NewSink()
			c.setup(sink)
			sink.Start(t)
			_, err := adapter(sink).Send(context.Background(), message("<p>x</p>", nil))
			var r *channels.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("not a refusal: %v", err)
			}
			if r.Code != c.code || r.RetryAfter != c.retry || !strings.Contains(r.Reason, c.in) {
				t.Fatalf("refusal %+v", r)
			}
			if len(sink.Mails()) != 0 {
				t.Fatal("the relay kept a mail")
			}
		})
	}
}

// A relay that took the whole mail and dropped before its reply may deliver
// it: the outcome is unknown, never a refusal that a retry would send again.
func TestRelayDropAfterDataIsUnknown(t *testing.T) {
	sink := emailtest.NewSink()
	sink.DropAfterData()
	sink.Start(t)
	_, err := adapter(sink).Send(context.Background(), message("<p>x</p>", nil))
	if err == nil || !channels.OutcomeUnknown(err) {
		t.Fatalf("error %v, want an unknown outcome", err)
	}
	if len(sink.Mails()) != 1 {
		t.Fatalf("the relay kept %d mails, want the 1 it read", len(sink.Mails()))
	}
}

func TestRelayUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	a := &email.Adapter{Relay: &email.Relay{Addr: addr, TLS: email.None}, Timeout: time.Second}
	_, err := a.Send(context.Background(), message("<p>x</p>", nil))
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || channels.OutcomeUnknown(err) {
		t.Fatalf("refusal %v", err)
	}
}

// selfSigned is a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay.test"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}, pool
}

func TestSTARTTLSWithAuth(t *testing.T) {
	cert, pool := selfSigned(t)
	sink := emailtest.NewSink()
	sink.StartTLS(cert)
	sink.RequireAuth("mailer", "s3cret")
	sink.Start(t)
	relay, err := email.ParseRelay("smtp://mailer:s3cret@" + sink.Addr)
	if err != nil {
		t.Fatal(err)
	}
	relay.TLSConfig = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	a := &email.Adapter{Relay: relay, Timeout: 5 * time.Second}
	if _, err := a.Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if len(sink.Mails()) != 1 || strings.Join(sink.Authenticated(), ",") != "PLAIN:mailer" {
		t.Fatalf("mails %d, authenticated %v", len(sink.Mails()), sink.Authenticated())
	}
}

func TestSTARTTLSRequired(t *testing.T) {
	sink := emailtest.NewSink().Start(t) // offers no STARTTLS
	relay, err := email.ParseRelay("smtp://" + sink.Addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil))
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || len(sink.Mails()) != 0 {
		t.Fatalf("sent over plain text: %v, %d mails", err, len(sink.Mails()))
	}
}

func TestImplicitTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	sink := emailtest.NewSink()
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = sink.Server.Serve(l) }()
	t.Cleanup(func() { _ = sink.Server.Close() })
	relay, err := email.ParseRelay("smtps://" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	relay.TLSConfig = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if len(sink.Mails()) != 1 {
		t.Fatal("no mail over implicit TLS")
	}
}

func TestParseRelay(t *testing.T) {
	good := map[string]email.Relay{
		"smtp://u:p@mail.example.com":             {Addr: "mail.example.com:587", TLS: email.STARTTLS, Username: "u", Password: "p"},
		"smtps://u:p@mail.example.com":            {Addr: "mail.example.com:465", TLS: email.Implicit, Username: "u", Password: "p"},
		"smtp://127.0.0.1:2526?tls=none":          {Addr: "127.0.0.1:2526", TLS: email.None},
		"smtp://mail.example.com:25?tls=starttls": {Addr: "mail.example.com:25", TLS: email.STARTTLS},
	}
	for raw, want := range good {
		got, err := email.ParseRelay(raw)
		if err != nil || *got != want {
			t.Errorf("%s: %+v %v", raw, got, err)
		}
	}
	for _, raw := range []string{"", "mail.example.com", "http://x", "smtp://x?tls=maybe", "smtps://x?tls=none", "smtp://u:p@x:25?tls=none", "smtp://"} {
		if _, err := email.ParseRelay(raw); err == nil {
			t.Errorf("%q accepted", raw)
		}
	}
}

func TestHTMLToText(t *testing.T) {
	cases := map[string]string{
		"<p>One</p><p>Two<br>Three</p>":                      "One\n\nTwo\nThree",
		"<ul><li>a</li><li>b</li></ul>":                      "- a\n- b",
		`<a href="https://x.test/">https://x.test/</a>`:      "https://x.test/",
		`<a href="javascript:alert(1)">click</a>`:            "click",
		"<style>p{}</style><script>evil()</script>Just text": "Just text",
		"Tom &amp; Jerry &lt;3":                              "Tom & Jerry <3",
	}
	for in, want := range cases {
		if got := email.HTMLToText(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// HelloName: the public host, an address literal for an IP, never
// localhost.
func TestHelloName(t *testing.T) {
	for url, want := range map[string]string{
		"https://msg.example.com":        "msg.example.com",
		"https://msg.example.com:8443/x": "msg.example.com",
		"http://10.0.0.5:8080":           "[10.0.0.5]",
		"http://[::1]:8080":              "[IPv6:::1]",
	} {
		if got := email.HelloName(url); got != want {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
	for _, url := range []string{"http://localhost:8080", ""} {
		if got := email.HelloName(url); strings.EqualFold(got, "localhost") || got == "" {
			t.Errorf("%q gives EHLO %q", url, got)
		}
	}
}

// tlsRelay is a STARTTLS relay stand-in with user mailer and its relay
// config from raw (a URL of MSGSVC_SMTP_RELAY naming the sink's address).
func tlsRelay(t *testing.T, sink *emailtest.Sink, raw string) *email.Relay {
	t.Helper()
	cert, pool := selfSigned(t)
	sink.StartTLS(cert)
	sink.Start(t)
	relay, err := email.ParseRelay(strings.ReplaceAll(raw, "ADDR", sink.Addr))
	if err != nil {
		t.Fatal(err)
	}
	relay.TLSConfig = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	relay.Hostname = "mx.acme.test"
	return relay
}

// Microsoft 365 (smtp.office365.com:587) offers AUTH LOGIN and XOAUTH2,
// not PLAIN (learn.microsoft.com/exchange/mail-flow-best-practices/
// how-to-set-up-a-multifunction-device-or-application-to-send-email-using-microsoft-365-or-office-365):
// the relay's credentials go through LOGIN.
func TestRelayOfferingOnlyLogin(t *testing.T) {
	sink := emailtest.NewSink()
	sink.OfferAuth("LOGIN", "XOAUTH2")
	sink.RequireAuth("mailer@acme.test", "s3cret")
	relay := tlsRelay(t, sink, "smtp://mailer%40acme.test:s3cret@ADDR")
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sink.Authenticated(), ","); len(sink.Mails()) != 1 || got != "LOGIN:mailer@acme.test" {
		t.Fatalf("mails %d, authenticated %q", len(sink.Mails()), got)
	}
}

// auth=xoauth2 sends the URL's password as the OAuth access token
// (developers.google.com/gmail/imap/xoauth2-protocol).
func TestRelayXOAUTH2(t *testing.T) {
	sink := emailtest.NewSink()
	sink.OfferAuth("LOGIN", "XOAUTH2")
	sink.RequireAuth("mailer@acme.test", "ya29.token")
	relay := tlsRelay(t, sink, "smtp://mailer%40acme.test:ya29.token@ADDR?auth=xoauth2")
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sink.Authenticated(), ","); got != "XOAUTH2:mailer@acme.test" {
		t.Fatalf("authenticated %q", got)
	}
}

// A relay that offers none of the mechanisms msgsvc speaks refuses the
// send with the mechanisms named, and nothing is sent.
func TestRelayWithoutUsableAuth(t *testing.T) {
	sink := emailtest.NewSink()
	sink.OfferAuth("CRAM-MD5")
	sink.RequireAuth("mailer", "s3cret")
	relay := tlsRelay(t, sink, "smtp://mailer:s3cret@ADDR")
	_, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil))
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || !strings.Contains(r.Reason, "CRAM-MD5") || len(sink.Mails()) != 0 {
		t.Fatalf("refusal %+v, %d mails", r, len(sink.Mails()))
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatal("the password is in the error")
	}
}

// smtp-relay.gmail.com answers "EHLO localhost" with 421 4.7.0
// (support.google.com/a/answer/2956491): msgsvc greets with its own name,
// before STARTTLS too, and the mail goes out.
func TestRelayRefusingEHLOLocalhost(t *testing.T) {
	sink := emailtest.NewSink()
	sink.RefuseHello("localhost", 421, smtp.EnhancedCode{4, 7, 0}, "Try again later, closing connection. (EHLO)")
	relay := tlsRelay(t, sink, "smtp://ADDR")
	if _, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil)); err != nil {
		t.Fatal(err)
	}
	if got := sink.Hellos(); len(sink.Mails()) != 1 || len(got) == 0 || slices.Contains(got, "localhost") {
		t.Fatalf("mails %d, EHLO names %v", len(sink.Mails()), got)
	}
	// Greeting as localhost is what the relay refuses: 429, to retry.
	relay.Hostname = "localhost"
	_, err := (&email.Adapter{Relay: relay, Timeout: 5 * time.Second}).Send(context.Background(), message("<p>x</p>", nil))
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelRateLimited || !strings.Contains(r.Reason, "421 4.7.0") {
		t.Fatalf("EHLO localhost: %+v", r)
	}
}

// A relay that stalls after EHLO does not hold a send past the provider
// timeout: go-smtp clears connection deadlines between commands, so the
// submission's context closes the connection. No timing is asserted; the
// generous wait only keeps a regression from hanging the suite.
func TestRelayStallingAfterEHLO(t *testing.T) {
	sink := emailtest.NewSink()
	sink.StallAfterHello(t)
	sink.Start(t)
	a := &email.Adapter{Relay: &email.Relay{Addr: sink.Addr, TLS: email.None, Hostname: "mx.acme.test"}, Timeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := a.Send(context.Background(), message("<p>x</p>", nil))
		done <- err
	}()
	select {
	case err := <-done:
		if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || !strings.Contains(r.Reason, "timeout") {
			t.Fatalf("refusal %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("the send is still blocked on a stalled relay")
	}
}

// Keys: RSA under 1024 bits is refused (RFC 8301), an Ed25519 key alone is
// not a domain's key (the large providers verify RSA only), and Record is
// the TXT record a verifier finds.
func TestDKIMKeyRules(t *testing.T) {
	// A 768-bit PKCS#1 key (Go no longer generates one).
	const shortPEM = `-----BEGIN RSA PRIVATE KEY-----
MIIBywIBAAJhANXFMdqKgwBXC/1Eh31hF97gRW3/oyGwgeTFl8xTT+48B7a5j9EK
A9QvaWaNrnwKCBQcaBwvq0Dmqn/+Yi2DPkWGIslLHzyMNhZeGYsMr5dEIiC4eR0I
Ni9vuHdn/nTF6QIDAQABAmAWCx2W8Y2MrW05EqX+EdMKUooWS7QgtzjNxGpg0X5+
jIYnG39vCN9YNANkZdvGQqpeRKCny94C/qvvPBVXgUXGz8fGSnpjIZ9AUbv/SHKg
z+AbIJW/zr9Jxm3UIdbP22ECMQD38rcKVOb+tXwOx99tvN0VNdsLq+bx/YK1nDvZ
oMRSRjorKQWjRbQ+DOEgE3atrg0CMQDctljKd4aOOzj6Cd1zr8EGSE2SWizKSrpG
R2wptwCplbLP4WR1ucDho2fMUcRmHE0CMQDlmVUT9SDeNhJF4aGtDZmv/Wn0Od+m
sDkskRr+4JdLFIri0p7M3UwVtXl2aW+ZTrUCMGlmhzaBJ/fKXmZByciSWQqoAqtu
ds9QKm6fcw7kvuM9gvv1NiVmRK88erg/IBxnTQIxALxeRIQ7Hm5FB5gWU0JOtIcS
iIEV7hUhVBk2lhfPJv31MAJeelUxKja3AZyyHZlOeg==
-----END RSA PRIVATE KEY-----
`
	if err := email.CheckKey(shortPEM); err == nil || !strings.Contains(err.Error(), "768-bit") {
		t.Errorf("a 768-bit key: %v", err)
	}
	if _, err := email.Sign([]byte("From: a@acme.test\r\n\r\nx\r\n"), "acme.test", &channels.DKIMKey{Selector: "s", PrivateKeyPEM: shortPEM}); err == nil {
		t.Error("a 768-bit key signed")
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	if err := email.CheckKey(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))); err == nil {
		t.Error("an Ed25519 key alone was accepted")
	}
	keyPEM, txt := emailtest.RSAKey(t)
	if err := email.CheckKey(keyPEM); err != nil {
		t.Fatal(err)
	}
	if got, err := email.Record(keyPEM); err != nil || got != txt {
		t.Errorf("Record %q, %v; want %q", got, err, txt)
	}
}

// From is oversigned: h= names it once more than the mail has it, so a
// From added later breaks the signature.
func TestFromOversigned(t *testing.T) {
	sink := emailtest.NewSink().Start(t)
	keyPEM, txt := emailtest.RSAKey(t)
	if _, err := adapter(sink).Send(context.Background(), message("<p>x</p>", &channels.DKIMKey{Selector: "s1", PrivateKeyPEM: keyPEM})); err != nil {
		t.Fatal(err)
	}
	raw := sink.Mails()[0].Data
	verifyDKIM(t, raw, "s1._domainkey.acme.test", txt)
	sig := string(raw[:bytes.Index(raw, []byte("\r\n\r\n"))])
	m := regexp.MustCompile(`[;\s]h=([^;]+)`).FindStringSubmatch(sig)
	if m == nil {
		t.Fatalf("no h= in %s", sig)
	}
	h := strings.Split(strings.ToLower(strings.Join(strings.Fields(m[1]), "")), ":")
	if n := len(slices.DeleteFunc(slices.Clone(h), func(k string) bool { return k != "from" })); n != 2 {
		t.Errorf("h= %v does not name From twice", h)
	}
}

// inbox is an Inbox that takes every recipient and keeps what arrives
// (and, when rcpts is set, its recipients).
type inbox struct {
	got   chan []byte
	rcpts chan []string
}

func (i inbox) Accepts(context.Context, string) (bool, error) { return true, nil }
func (i inbox) Deliver(_ context.Context, _ string, rcpts []string, raw []byte) error {
	if i.rcpts != nil {
		i.rcpts <- rcpts
	}
	i.got <- raw
	return nil
}

// With a certificate the listener offers STARTTLS (RFC 3207): a sender
// that requires TLS (msgsvc's own relay client here) delivers over it.
func TestListenerOffersSTARTTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	in := inbox{got: make(chan []byte, 1)}
	l := &email.Listener{Inbox: in, Hostname: "mx.acme.test", TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = l.Serve(ctx, ln) }()
	relay := &email.Relay{Addr: ln.Addr().String(), TLS: email.STARTTLS, Hostname: "sender.example.com",
		TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}}
	submit, cancelSubmit := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelSubmit()
	if err := relay.Submit(submit, "ada@example.com", []string{"support@acme.test"}, []byte("Subject: hi\r\n\r\nover TLS\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := string(<-in.got); !strings.Contains(got, "over TLS") {
		t.Fatalf("delivered %q", got)
	}
	// Without a certificate STARTTLS is not offered: a TLS-only sender
	// gets nothing through.
	plain := &email.Listener{Inbox: in, Hostname: "mx.acme.test"}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = plain.Serve(ctx, ln2) }()
	relay.Addr = ln2.Addr().String()
	if err := relay.Submit(submit, "ada@example.com", []string{"support@acme.test"}, []byte("Subject: hi\r\n\r\nx\r\n")); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("plain listener: %v", err)
	}
}
