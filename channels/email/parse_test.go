package email_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSamples(t *testing.T) {
	p := email.Parse(sample(t, "plain.eml"))
	if p.From != "ada@example.com" || p.FromName != "Ada Lovelace" || p.Subject != "Where is my parcel?" ||
		p.MessageID != "plain-1@mail.example.com" || !strings.Contains(p.Text, "my parcel has not arrived.") || p.HTML != nil ||
		strings.Join(p.To, ",") != "support@verified.test" || len(p.Notes) != 0 {
		t.Errorf("plain: %+v", p)
	}
	p = email.Parse(sample(t, "html-only.eml"))
	if p.Subject != "Café order" || p.HTML == nil || !strings.HasPrefix(*p.HTML, "<p>Café <b>order</b></p><script>") ||
		p.Text != "Café order\nx" || strings.Join(p.Cc, ",") != "bob@example.com" {
		t.Errorf("html-only: %+v %q", p, p.Text)
	}
	p = email.Parse(sample(t, "attachments.eml"))
	if p.Text != "See the invoice attached." || p.HTML == nil || *p.HTML != "<p>See the <i>invoice</i> attached.</p>" || len(p.Attachments) != 2 {
		t.Fatalf("attachments: %+v", p)
	}
	if a := p.Attachments[0]; a.Filename != "invoice.pdf" || a.ContentType != "application/pdf" || string(a.Content) != "%PDF-1.4\n" {
		t.Errorf("pdf %+v", a)
	}
	if a := p.Attachments[1]; a.Filename != "logo.png" || a.ContentType != "image/png" {
		t.Errorf("inline image %+v", a)
	}
	p = email.Parse(sample(t, "forwarded.eml"))
	if p.Text != "Forwarding this from my colleague." || len(p.Attachments) != 1 || p.Attachments[0].ContentType != "message/rfc822" ||
		!bytes.Contains(p.Attachments[0].Content, []byte("The order arrived broken.")) {
		t.Errorf("forwarded: %+v", p)
	}
	p = email.Parse(sample(t, "auto-reply.eml"))
	if !p.AutoSubmitted || p.DSN != nil {
		t.Errorf("auto-reply: %+v", p)
	}
	p = email.Parse(sample(t, "dsn.eml"))
	if p.DSN == nil || len(p.DSN.Recipients) != 1 {
		t.Fatalf("dsn: %+v", p)
	}
	r := p.DSN.Recipients[0]
	if r.Recipient != "gone@example.com" || r.Action != "failed" || r.Status != "5.1.1" || !r.Permanent() ||
		!strings.Contains(r.Diagnostic, "User unknown") {
		t.Errorf("dsn recipient %+v", r)
	}
}

// multipart builds a mail whose body is given.
func mailWith(contentType, body string) []byte {
	return []byte("From: x@example.com\r\nTo: support@verified.test\r\nSubject: bad\r\nMIME-Version: 1.0\r\nContent-Type: " +
		contentType + "\r\n\r\n" + body)
}

func TestParseBadMail(t *testing.T) {
	p := email.Parse(mailWith(`multipart/mixed; boundary="b"`, emailtest.ManyAttachments(1000)))
	if len(p.Attachments) != email.MaxAttachments || !strings.Contains(strings.Join(p.Notes, " "), "900 attachments over the limit") {
		t.Errorf("1000 attachments: kept %d, notes %v", len(p.Attachments), p.Notes)
	}

	if p := email.Parse(mailWith(`multipart/mixed; boundary="b0"`, emailtest.Nested(50, "deep text"))); p.Text != "deep text" {
		t.Errorf("50 deep: %q %v", p.Text, p.Notes)
	}

	p = email.Parse(mailWith("text/plain; charset=x-no-such-charset", "caf\xe9"))
	if !strings.Contains(p.Text, "caf") || len(p.Notes) == 0 {
		t.Errorf("unknown charset: %q %v", p.Text, p.Notes)
	}
	p = email.Parse([]byte("From: J\xf6rg <j@example.com>\r\nSubject: gr\xfc\xdfe \x00\r\nTo: support@verified.test\r\n\r\nbody \xff\x00 end\r\n"))
	if p.Text == "" || strings.ContainsRune(p.Text, 0) || strings.ContainsRune(p.Subject, 0) || !strings.Contains(p.Text, "end") {
		t.Errorf("8-bit headers: %+v", p)
	}
	p = email.Parse(mailWith(`multipart/mixed; boundary="never"`, "no boundary ever\r\n"))
	_ = p // malformed MIME: must not panic; what it keeps is a best effort
	p = email.Parse([]byte("not a mail at all"))
	if p == nil {
		t.Fatal("nil parse")
	}
	big := strings.Repeat("a", email.MaxBodyBytes+10)
	p = email.Parse(mailWith("text/plain", big))
	if len(p.Text) != email.MaxBodyBytes || !strings.Contains(strings.Join(p.Notes, " "), "truncated") {
		t.Errorf("big body: %d bytes, notes %v", len(p.Text), p.Notes)
	}
	// What a note says is a warning too, with its code.
	if len(p.Warnings) != 1 || p.Warnings[0].Code != email.WarnTruncated || p.Warnings[0].Detail != p.Notes[0] {
		t.Errorf("big body warnings %v", p.Warnings)
	}
}

// FuzzParse: whatever arrives, Parse returns storable text (valid UTF-8,
// no NUL) within its limits, and its HTML shown holds nothing unsafe
// (unsafeHTML). Seeds: the sample mails, the bad mails of
// testdata/fuzz/FuzzParse, enmime's test mails and DOMPurify's payloads as
// HTML mail (testdata/README.md).
func FuzzParse(f *testing.F) {
	for _, name := range []string{"plain.eml", "html-only.eml", "attachments.eml", "forwarded.eml", "dsn.eml", "auto-reply.eml"} {
		f.Add(sample(f, name))
	}
	for _, raw := range enmimeCorpus(f) {
		f.Add(raw)
	}
	for _, payload := range payloads(f) {
		f.Add(mailWith("text/html; charset=utf-8", payload))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := email.Parse(raw)
		if p == nil || slices.Contains(p.Notes, email.ParserFailed) {
			t.Fatalf("the parser failed: %+v", p)
		}
		if p.HTML != nil {
			if out, _ := (email.Display{Inline: corpusInline}).Sanitize(*p.HTML); len(unsafeHTML(out)) > 0 {
				t.Fatalf("unsafe html %q: %v", out, unsafeHTML(out))
			}
		}
		fields := []string{p.Text, p.Subject, p.From, p.FromName, p.MessageID}
		if p.HTML != nil {
			fields = append(fields, *p.HTML)
		}
		for _, f := range append(append(fields, p.To...), p.Cc...) {
			if strings.ContainsRune(f, 0) || !utf8.ValidString(f) {
				t.Fatalf("not storable: %q", f)
			}
		}
		// A replaced byte takes 3 (U+FFFD): 3 x the limit at most.
		if len(p.Text) > 3*email.MaxBodyBytes || (p.HTML != nil && len(*p.HTML) > 3*email.MaxBodyBytes) {
			t.Fatalf("text %d bytes, html over the limit", len(p.Text))
		}
		if len(p.Attachments) > email.MaxAttachments {
			t.Fatalf("%d attachments", len(p.Attachments))
		}
		size := 0
		for _, a := range p.Attachments {
			size += len(a.Content)
		}
		if size > len(raw) {
			t.Fatalf("attachments of %d bytes from a mail of %d", size, len(raw))
		}
		if p.DSN != nil && len(p.DSN.Recipients) > 1000 {
			t.Fatalf("%d DSN recipients", len(p.DSN.Recipients))
		}
	})
}

// TestParseRepairs: what the lenient reader recovers that a strict one
// loses (enmime's rules), with the repair recorded in Warnings.
func TestParseRepairs(t *testing.T) {
	// base64 without its final padding keeps its last bytes.
	p := email.Parse(mailWith(`multipart/mixed; boundary="b"`, "--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\n"+
		"Content-Type: application/octet-stream; name=\"a.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\nQUJDREVGR0g\r\n--b--\r\n"))
	if len(p.Attachments) != 1 || string(p.Attachments[0].Content) != "ABCDEFGH" || p.Attachments[0].Filename != "a.bin" {
		t.Errorf("unpadded base64: %+v", p.Attachments)
	}
	// A leading mbox "From " line does not lose the headers.
	p = email.Parse([]byte("From ada@example.com Mon Jan  1 00:00:00 2024\r\nFrom: Ada <ada@example.com>\r\nSubject: hello\r\n\r\nbody\r\n"))
	if p.From != "ada@example.com" || p.Subject != "hello" || p.Text != "body" {
		t.Errorf("mbox From line: %+v", p)
	}
	// A part with an unknown transfer encoding is kept as it came.
	p = email.Parse(mailWith(`multipart/mixed; boundary="b"`, "--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\n"+
		"Content-Type: application/pdf; name=\"x.pdf\"\r\nContent-Transfer-Encoding: x-weird\r\n\r\n%PDF-raw\r\n--b--\r\n"))
	if len(p.Attachments) != 1 || !strings.HasPrefix(string(p.Attachments[0].Content), "%PDF-raw") || len(p.Warnings) == 0 {
		t.Errorf("unknown encoding: %+v %v", p.Attachments, p.Warnings)
	}
}

// A Message-ID longer than a header line may be is not kept: stored as the
// mail's key it would fail every attempt to store the mail.
func TestParseDropsAnOverlongMessageID(t *testing.T) {
	long := "<" + strings.Repeat("a1b2c3d4", 400) + "@example.com>"
	p := email.Parse([]byte("From: ada@example.com\r\nMessage-ID: " + long + "\r\nSubject: hi\r\n\r\nhello\r\n"))
	if p.MessageID != "" || p.Text != "hello" || !slices.ContainsFunc(p.Warnings, func(w email.Warning) bool { return w.Code == "malformed_header" }) {
		t.Errorf("Message-ID %d bytes, text %q, warnings %v; want no id, the text, a malformed_header warning", len(p.MessageID), p.Text, p.Warnings)
	}
	ok := email.Parse([]byte("From: ada@example.com\r\nMessage-ID: <" + strings.Repeat("a", email.MaxMessageID-12) + "@example.com>\r\n\r\nhello\r\n"))
	if len(ok.MessageID) != email.MaxMessageID {
		t.Errorf("a Message-ID of %d characters was not kept (%d)", email.MaxMessageID, len(ok.MessageID))
	}
}

// mixedMail is a multipart/mixed mail: a text part, then one more part
// with the given header lines and body.
func mixedMail(headers, body string) []byte {
	return []byte(strings.ReplaceAll("From: ada@example.com\nTo: support@verified.test\nSubject: parts\nMIME-Version: 1.0\n"+
		"Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\nhello\n--b\n"+
		headers+"\n\n"+body+"\n--b--\n", "\n", "\r\n"))
}

// An attachment whose base64 decodes to nothing (one character) is an
// empty file, never a missing one (the store refuses a file without
// content), with the repair noted.
func TestAttachmentDecodingToNothingIsEmpty(t *testing.T) {
	for _, body := range []string{"A", "!!!!", ""} {
		p := email.Parse(mixedMail("Content-Type: application/pdf; name=\"a.pdf\"\nContent-Transfer-Encoding: base64\n"+
			"Content-Disposition: attachment; filename=\"a.pdf\"", body))
		if len(p.Attachments) != 1 || p.Attachments[0].Content == nil || len(p.Attachments[0].Content) != 0 ||
			p.Attachments[0].Filename != "a.pdf" {
			t.Errorf("%q: attachments %+v", body, p.Attachments)
		}
	}
}

// A part is one attachment, whatever its headers say twice: a named text
// part marked both inline and attachment is added to the text and kept
// once.
func TestPartWithTwoDispositionsIsOneAttachment(t *testing.T) {
	for _, headers := range []string{
		"Content-Type: text/plain; name=\"a.txt\"\nContent-Disposition: inline\nContent-Disposition: attachment; filename=\"a.txt\"",
		"Content-Type: text/plain\nContent-Disposition: inline; filename=\"a.txt\"",
		"Content-Type: text/plain; name=\"a.txt\"\nContent-Disposition: attachment; filename=\"a.txt\"\nContent-Disposition: inline",
		"Content-Type: image/png; name=\"a.txt\"\nContent-Disposition: inline\nContent-Disposition: attachment; filename=\"a.txt\"",
	} {
		p := email.Parse(mixedMail(headers, "more"))
		if len(p.Attachments) != 1 || p.Attachments[0].Filename != "a.txt" || string(p.Attachments[0].Content) != "more" {
			t.Errorf("%q: %d attachments %+v", headers, len(p.Attachments), p.Attachments)
		}
	}
}
