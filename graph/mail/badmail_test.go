package mail_test

import (
	"errors"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email/emailtest"
)

// badMail is a mail from sender with the given header lines and body.
func badMail(sender, headers, body string) []byte {
	return []byte("From: " + sender + "\r\nTo: support@verified.test\r\nSubject: bad " + sender + "\r\nMIME-Version: 1.0\r\n" +
		headers + "\r\n" + body)
}

// TestBadMailOverTheListener: mail that is broken or huge is refused with a
// clear SMTP answer or stored with a note saying what was not taken as it
// came, and the listener keeps serving after each.
func TestBadMailOverTheListener(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)

	for _, c := range []struct {
		name, sender string
		raw          []byte
		text         string // as stored, with the note
		attachments  int
	}{
		{"1,000 attachments", "many@example.com", badMail("many@example.com", "Content-Type: multipart/mixed; boundary=\"b\"\r\n", emailtest.ManyAttachments(1000)),
			"[msgsvc: 900 attachments over the limit of 100 were not kept.]", 100},
		{"nested 50 deep", "deep@example.com", badMail("deep@example.com", "Content-Type: multipart/mixed; boundary=\"b0\"\r\n", emailtest.Nested(50, "deep text")),
			"deep text", 0},
		{"unknown charset", "charset@example.com", badMail("charset@example.com", "Content-Type: text/plain; charset=x-no-such-charset\r\n", "caf\xe9\r\n"),
			"caf\uFFFD\n\n[msgsvc: The charset \"x-no-such-charset\" is unknown; the text is kept as it came. Bytes that are not UTF-8 text were replaced.]", 0},
		{"unknown transfer encoding", "encoding@example.com", badMail("encoding@example.com", "Content-Type: text/plain\r\nContent-Transfer-Encoding: x-uuencode\r\n", "begin 644 f\r\n"),
			"begin 644 f\n\n[msgsvc: The transfer encoding \"x-uuencode\" is unknown; the text is kept as it came.]", 0},
		{"8-bit headers and NUL", "eight@example.com", []byte("From: J\xf6rg <eight@example.com>\r\nTo: support@verified.test\r\nSubject: gr\xfc\xdfe \x00\r\n\r\nbody \xff\x00 end\r\n"),
			"body \u00ff\uFFFD end\n\n[msgsvc: Bytes that are not UTF-8 text were replaced.]", 0},
		{"a boundary that never comes", "boundary@example.com", badMail("boundary@example.com", "Content-Type: multipart/mixed; boundary=\"never\"\r\n", "no boundary ever\r\n"),
			"no boundary ever\n\n[msgsvc: The body could not be read as MIME; its raw text is kept.]", 0},
		{"multipart without a boundary", "noboundary@example.com", badMail("noboundary@example.com", "Content-Type: multipart/mixed\r\n", "just text\r\n"),
			"just text\n\n[msgsvc: The mail could not be read as MIME (Failed to EnvelopeFromPart: unable to locate boundary param in Content-Type header); its raw text is kept.]", 0},
		{"an attachment decoding to nothing", "empty@example.com", badMail("empty@example.com", "Content-Type: multipart/mixed; boundary=\"b\"\r\n",
			"--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--b\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\n"+
				"Content-Transfer-Encoding: base64\r\n\r\nA\r\n--b--\r\n"),
			"see attached", 1}, // an empty file, with a malformed_base64 warning
		{"not a mail at all", "nomail@example.com", []byte("From: nomail@example.com\r\nthis line is no header\r\n\r\nbody\r\n"),
			"body", 0}, // the line is read as a badly folded From (a warning)
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := deliver(t, api, addr, c.sender, []string{"support@verified.test"}, c.raw); err != nil {
				t.Fatal(err)
			}
			conv := conversationOf(t, api, c.sender)
			msgs := list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil))
			if len(msgs) != 1 {
				t.Fatalf("%d messages", len(msgs))
			}
			text, _ := msgs[0]["text"].(string)
			if text != c.text {
				t.Errorf("text %q, want %q", text, c.text)
			}
			if n := len(msgs[0]["attachments"].([]any)); n != c.attachments {
				t.Errorf("%d attachments, want %d", n, c.attachments)
			}
		})
	}

	t.Run("50 MB", func(t *testing.T) {
		big := badMail("big@example.com", "Content-Type: text/plain\r\n", strings.Repeat(strings.Repeat("a", 998)+"\r\n", 50<<10))
		err := smtp.SendMail(addr, nil, "big@example.com", []string{"support@verified.test"}, big)
		var tpErr *textproto.Error
		if !errors.As(err, &tpErr) || tpErr.Code != 552 || !strings.HasPrefix(tpErr.Msg, "5.3.4") {
			t.Fatalf("a 50 MB mail: %v, want 552 5.3.4", err)
		}
	})

	// The listener still takes mail after all of that.
	if err := deliver(t, api, addr, "after@example.com", []string{"support@verified.test"},
		badMail("after@example.com", "Content-Type: text/plain\r\n", "still here\r\n")); err != nil {
		t.Fatal(err)
	}
	conv := conversationOf(t, api, "after@example.com")
	if msgs := list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil)); len(msgs) != 1 || msgs[0]["text"] != "still here" {
		t.Fatalf("after the bad mail: %v", msgs)
	}
}
