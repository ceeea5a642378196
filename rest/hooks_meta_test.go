package rest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The GET handshake answers the challenge for the verify token only, and a
// POST without a valid signature over its raw bytes is 401 with nothing
// stored.
func TestMetaHookHandshakeAndSignature(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	get := func(query string) (int, string) {
		resp, err := http.Get(h.HTTP.URL + "/hooks/meta?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := get("hub.mode=subscribe&hub.verify_token=" + hookVerify + "&hub.challenge=1158201444"); status != 200 || body != "1158201444" {
		t.Errorf("handshake: %d %q", status, body)
	}
	for _, q := range []string{"hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1", "hub.mode=unsubscribe&hub.verify_token=" + hookVerify + "&hub.challenge=1", ""} {
		if status, _ := get(q); status != 403 {
			t.Errorf("handshake %q: %d, want 403", q, status)
		}
	}

	// Meta signs its own serialisation (escaped unicode): the check is over
	// the bytes as they came, never a re-encoding of them.
	raw := []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + hookWABA + `","changes":[{"field":"messages","value":{` +
		`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"` + hookPNID + `"},` +
		`"contacts":[{"profile":{"name":"Jos\u00e9"},"wa_id":"` + hookCustomer + `"}],` +
		`"messages":[{"from":"` + hookCustomer + `","id":"wamid.SIG","timestamp":"1760529600","type":"text","text":{"body":"ol\u00e1 \ud83d\ude00"}}]}}]}]}`)
	for name, sig := range map[string]string{"no signature": "", "wrong signature": signature(append(raw, ' ')),
		"bare hex": strings.TrimPrefix(signature(raw), "sha256="), "sha1": "sha1=" + strings.TrimPrefix(signature(raw), "sha256=")} {
		if status, _ := h.post(raw, sig); status != 401 {
			t.Errorf("%s: %d, want 401", name, status)
		}
	}
	if n := h.count(`SELECT count(*) FROM provider_hooks`); n != 0 {
		t.Fatalf("%d hooks stored from unsigned posts", n)
	}
	if status, body := h.post(raw, signature(raw)); status != 200 || body != "EVENT_RECEIVED" {
		t.Fatalf("signed post: %d %q", status, body)
	}
	h.process()
	got := h.messageOf("wamid.SIG")
	if got["text"] != "olá 😀" || got["direction"] != "inbound" || got["type"] != "text" {
		t.Errorf("message %v", got)
	}
}

// Every WhatsApp message type becomes a message.received with its words;
// media is downloaded with the number's bearer token and kept only when
// its bytes match the announced sha256; Meta's retry of the same payload
// creates nothing twice.
func TestMetaHookWhatsAppMessageTypes(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	photo := []byte("\x89PNG\r\n\x1a\nstand-in image bytes")
	sum := sha256.Sum256(photo)
	photoSHA := base64.StdEncoding.EncodeToString(sum[:])
	h.graph.AddMedia("media.IMAGE", photo, "image/png", hookToken, "")
	h.graph.AddMedia("media.DOC", []byte("%PDF-1.4 stand-in"), "application/pdf", hookToken, "")
	h.graph.AddMedia("media.BAD", []byte("tampered"), "audio/ogg", hookToken, photoSHA)
	at := resttest.Epoch.Unix() - 60
	payload := waChange("messages", waValue("messages",
		waMessage("wamid.TEXT", at, "text", map[string]any{"body": "hello"}),
		waMessage("wamid.IMAGE", at+1, "image", map[string]any{"id": "media.IMAGE", "mime_type": "image/png", "sha256": photoSHA, "caption": "my order"}),
		waMessage("wamid.DOC", at+2, "document", map[string]any{"id": "media.DOC", "mime_type": "application/pdf", "filename": "invoice.pdf"}),
		waMessage("wamid.BAD", at+3, "audio", map[string]any{"id": "media.BAD", "mime_type": "audio/ogg", "voice": true}),
		waMessage("wamid.BUTTON", at+4, "interactive", map[string]any{"type": "button_reply", "button_reply": map[string]any{"id": "yes-1", "title": "Yes"}}),
		waMessage("wamid.LIST", at+5, "interactive", map[string]any{"type": "list_reply", "list_reply": map[string]any{"id": "opt-2", "title": "Tomorrow", "description": "9-12"}}),
		waMessage("wamid.QUICK", at+6, "button", map[string]any{"text": "No", "payload": "No-Button-Payload"}),
		waMessage("wamid.WHERE", at+7, "location", map[string]any{"latitude": 52.52, "longitude": 13.405, "name": "Office", "address": "Berlin"}),
		waMessage("wamid.REACT", at+8, "reaction", map[string]any{"message_id": "wamid.TEXT", "emoji": "👍"}),
		waMessage("wamid.CARD", at+9, "contacts", []any{map[string]any{"name": map[string]any{"formatted_name": "Bob"}, "phones": []any{map[string]any{"phone": "+15550001234"}}}}),
		waMessage("wamid.ODD", at+10, "unsupported", nil),
	))
	h.deliver(payload)

	want := map[string]struct{ kind, text string }{
		"wamid.TEXT": {"text", "hello"}, "wamid.IMAGE": {"image", "my order"}, "wamid.DOC": {"document", ""},
		"wamid.BUTTON": {"interactive", "Yes"}, "wamid.LIST": {"interactive", "Tomorrow"}, "wamid.QUICK": {"interactive", "No"},
	}
	for wamid, w := range want {
		got := h.messageOf(wamid)
		text, _ := got["text"].(string)
		if got["type"] != w.kind || text != w.text || got["direction"] != "inbound" || got["channel"] != "whatsapp" {
			t.Errorf("%s: type %v text %q, want %s %q", wamid, got["type"], text, w.kind, w.text)
		}
	}
	for _, wamid := range []string{"wamid.WHERE", "wamid.REACT", "wamid.CARD", "wamid.ODD"} {
		if got := h.messageOf(wamid); got["direction"] != "inbound" {
			t.Errorf("%s: %v", wamid, got)
		}
	}

	// The image and the document are kept as attachments whose links serve
	// the downloaded bytes; both downloads carried the number's token.
	image := h.messageOf("wamid.IMAGE")
	atts, _ := image["attachments"].([]any)
	if len(atts) != 1 {
		t.Fatalf("image attachments %v", image["attachments"])
	}
	att := atts[0].(map[string]any)
	if att["content_type"] != "image/png" || att["size"] != float64(len(photo)) {
		t.Errorf("image attachment %v", att)
	}
	resp, err := http.Get(absolute(h.HTTP.URL, att["url"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(served) != string(photo) {
		t.Errorf("the signed link served %d %q", resp.StatusCode, served)
	}
	doc := h.messageOf("wamid.DOC")
	if atts, _ := doc["attachments"].([]any); len(atts) != 1 || atts[0].(map[string]any)["filename"] != "invoice.pdf" {
		t.Errorf("document attachments %v", doc["attachments"])
	}
	for _, id := range []string{"media.IMAGE", "media.DOC", "media.BAD"} {
		reqs := h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/"+id) })
		if len(reqs) != 2 || reqs[0].Path != "/v24.0/"+id || reqs[0].Query.Get("phone_number_id") != hookPNID ||
			reqs[1].Path != "/media-files/"+id || reqs[0].Bearer() != hookToken || reqs[1].Bearer() != hookToken {
			t.Errorf("download of %s: %+v", id, reqs)
		}
	}
	// A sha256 mismatch keeps the file without its bytes, failed, with
	// what Meta said of it, to be fetched again.
	bad := h.messageOf("wamid.BAD")
	if atts, _ := bad["attachments"].([]any); len(atts) != 1 || atts[0].(map[string]any)["status"] != "failed" ||
		atts[0].(map[string]any)["provider_media_id"] != "media.BAD" || atts[0].(map[string]any)["size"] != float64(0) || bad["text"] != nil {
		t.Errorf("mismatched audio kept as %v", bad)
	}
	if n := h.count(`SELECT count(*) FROM files WHERE content = $1`, []byte("tampered")); n != 0 {
		t.Errorf("the tampered bytes were stored %d times", n)
	}

	// The contact was captured by phone with the profile name, and the
	// window runs from the last message's own timestamp.
	var name, lastInbound string
	if err := h.Store.DB.QueryRow(`SELECT c.name, to_char(v.last_inbound_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
		FROM contacts c JOIN conversations v ON v.contact_id = c.id
		WHERE c.phone = '+15551234567' AND c.livemode AND v.channel = 'whatsapp'`).Scan(&name, &lastInbound); err != nil {
		t.Fatal(err)
	}
	if name != "Ana" || lastInbound != time.Unix(at+10, 0).UTC().Format("2006-01-02T15:04:05") {
		t.Errorf("contact %q, last inbound %s", name, lastInbound)
	}

	// Meta retries the payload: nothing is created twice.
	messages, events, files := h.count(`SELECT count(*) FROM messages`), h.count(`SELECT count(*) FROM events`), h.count(`SELECT count(*) FROM files`)
	h.deliver(payload)
	if m, e, f := h.count(`SELECT count(*) FROM messages`), h.count(`SELECT count(*) FROM events`), h.count(`SELECT count(*) FROM files`); m != messages || e != events || f != files {
		t.Errorf("a retried payload added %d messages, %d events, %d files", m-messages, e-events, f-files)
	}
	if n := h.count(`SELECT count(*) FROM provider_hooks WHERE processed_at IS NULL`); n != 0 {
		t.Errorf("%d hooks left unprocessed", n)
	}
}

// absolute makes a signed link absolute on the test server.
func absolute(base, link string) string {
	if strings.HasPrefix(link, "http") {
		return link
	}
	return base + link
}
