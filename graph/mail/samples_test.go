package mail_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSamplesThroughTheListener drives every sample mail of
// channels/email/testdata through the SMTP listener and the processing job,
// and checks the stored message exactly, and whether the AI owes it an
// answer: never for an auto-reply.
func TestSamplesThroughTheListener(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	htmlRaw := "<p>Café <b>order</b></p><script>alert(1)</script><a href=\"javascript:x()\">x</a>\r\n"
	for _, c := range []struct {
		file, from, subject, text string
		html, htmlRaw             any // nil: the mail has no HTML
		cc, attachments           string
		aiWork                    int
	}{
		{file: "plain.eml", from: "ada@example.com", subject: "Where is my parcel?",
			text: "Hello,\r\nmy parcel has not arrived.\r\nAda", aiWork: 1},
		{file: "html-only.eml", from: "ada@example.com", subject: "Café order", text: "Café order\nx",
			html: "<p>Café <b>order</b></p><a>x</a>\n", htmlRaw: htmlRaw, cc: "bob@example.com", aiWork: 1},
		{file: "attachments.eml", from: "ada@example.com", subject: "Invoice", text: "See the invoice attached.",
			html: "<p>See the <i>invoice</i> attached.</p>", htmlRaw: "<p>See the <i>invoice</i> attached.</p>",
			attachments: "invoice.pdf application/pdf 9, logo.png image/png 8", aiWork: 1},
		{file: "forwarded.eml", from: "carla@customer.test", subject: "Fwd: Problem with order",
			// The forwarded mail as it crossed SMTP (CRLF line ends).
			text: "Forwarding this from my colleague.", attachments: "attachment-1.eml message/rfc822 148", aiWork: 1},
		{file: "auto-reply.eml", from: "erin@example.com", subject: "Out of office: Your order",
			text: "I am out of the office until Monday.", aiWork: 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile("../../channels/email/testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			if err := deliver(t, api, addr, c.from, []string{"support@verified.test"}, raw); err != nil {
				t.Fatal(err)
			}
			conv := conversationOf(t, api, c.from)
			if conv["subject"] != c.subject || conv["mode"] != "ai" || conv["status"] != "open" {
				t.Errorf("conversation %v", conv)
			}
			msgs := list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil))
			if len(msgs) != 1 {
				t.Fatalf("%d messages", len(msgs))
			}
			m := msgs[0]
			if m["text"] != c.text || m["html"] != c.html || m["html_raw"] != c.htmlRaw || m["direction"] != "inbound" {
				t.Errorf("text %q html %q html_raw %q", m["text"], m["html"], m["html_raw"])
			}
			e, _ := m["email"].(map[string]any)
			if e["from"] != c.from || fmt.Sprint(e["to"]) != "[support@verified.test]" || fmt.Sprint(e["cc"]) != "["+c.cc+"]" ||
				fmt.Sprint(e["warnings"]) != "[]" {
				t.Errorf("email %v", e)
			}
			var atts []string
			for _, a := range m["attachments"].([]any) {
				a := a.(map[string]any)
				atts = append(atts, fmt.Sprintf("%s %s %v", a["filename"], a["content_type"], a["size"]))
			}
			if strings.Join(atts, ", ") != c.attachments {
				t.Errorf("attachments %q, want %q", strings.Join(atts, ", "), c.attachments)
			}
			var work int
			if err := api.Store.DB.Get(&work, `SELECT count(*) FROM ai_work WHERE conversation_id = $1`, conv["id"]); err != nil || work != c.aiWork {
				t.Errorf("%d AI work rows, want %d (%v)", work, c.aiWork, err)
			}
		})
	}
}
