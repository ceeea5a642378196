package mail_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// displayMail is an HTML mail with an inline image (cid:), a remote
// tracking pixel, a <style> block and a header line that is not a field.
const displayMail = "From: Ada <ada@example.com>\r\nTo: support@verified.test\r\nSubject: Newsletter\r\n" +
	"Message-ID: <display-1@example.com>\r\nthis line is not a header\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/related; boundary=\"rel\"\r\n\r\n" +
	"--rel\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
	"<html><head><style>.hi { color: #c00; position: fixed }</style></head><body>" +
	"<p class=\"hi\" id=\"location\">Hello</p><img src=\"cid:logo@example.com\" alt=\"logo\">" +
	"<img src=\"https://track.test/pixel.gif\"><a href=\"/admin\">rel</a></body></html>\r\n" +
	"--rel\r\nContent-Type: image/png\r\nContent-ID: <logo@example.com>\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
	"iVBORw0KGgo\r\n--rel--\r\n"

// TestInboundDisplay: the html shown keeps the mail's look, its cid: image
// becomes a signed link to its own attachment (fresh on each read), the
// remote image is withheld, and email.warnings says what was repaired and
// withheld, in REST, GraphQL and the message.received event alike.
func TestInboundDisplay(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	if err := deliver(t, api, addr, "ada@example.com", []string{"support@verified.test"}, []byte(displayMail)); err != nil {
		t.Fatal(err)
	}
	conv := conversationOf(t, api, "ada@example.com")
	m := list(api.Do("GET", "/v1/conversations/"+conv["id"].(string)+"/messages", "live_all", nil))[0]
	att := m["attachments"].([]any)[0].(map[string]any)
	html, _ := m["html"].(string)
	link := regexp.MustCompile(`<img src="([^"]+)" alt="logo"/>`).FindStringSubmatch(html)
	if link == nil || strings.ReplaceAll(link[1], "&amp;", "&") != att["url"] {
		t.Fatalf("cid image not the attachment's link (%v):\n%s", att["url"], html)
	}
	for _, want := range []string{`<style>.msgsvc .msgsvc-hi { color: #c00; }`, `<p class="msgsvc-hi" id="msgsvc-location">Hello</p>`,
		`<img data-msgsvc-remote-src="https://track.test/pixel.gif"/>`, `<a>rel</a>`} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %s:\n%s", want, html)
		}
	}
	if m["html_raw"] != displayMail[strings.Index(displayMail, "<html>"):strings.Index(displayMail, "</html>")+7] {
		t.Errorf("html_raw %q", m["html_raw"])
	}
	status, png := get(t, api, att["url"].(string))
	if status != 200 || string(png) != "\x89PNG\r\n\x1a\n" {
		t.Errorf("inline image: %d %q", status, png)
	}
	codes := func(email any) string {
		var out []string
		for _, w := range email.(map[string]any)["warnings"].([]any) {
			out = append(out, w.(map[string]any)["code"].(string))
		}
		return strings.Join(out, ",")
	}
	want := "malformed_header,remote_images_blocked"
	if got := codes(m["email"]); got != want {
		t.Errorf("REST warnings %s, want %s", got, want)
	}
	var received map[string]any
	for _, e := range api.Events("ws_main") {
		if e.Type == "message.received" {
			received, _ = e.Envelope["data"].(map[string]any)
		}
	}
	if received == nil || codes(received["email"]) != want {
		t.Errorf("event %v", received)
	}
	gql := graphqlMessages(t, api, conv["id"].(string))
	if fmt.Sprint(gql) != "[map[code:malformed_header] map[code:remote_images_blocked]]" {
		t.Errorf("GraphQL warnings %v", gql)
	}
}

// get fetches a signed link (public URL https://api.msgsvc.test) from the
// test server.
func get(t *testing.T, api *liveEmail, link string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(api.HTTP.URL + strings.TrimPrefix(link, "https://api.msgsvc.test"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// graphqlMessages is the warnings of the conversation's first message,
// read over GraphQL with the admin token in live mode.
func graphqlMessages(t *testing.T, api *liveEmail, conv string) any {
	t.Helper()
	q, _ := json.Marshal(map[string]any{"query": `{ messages(conversationId: "` + conv + `") { items { email { warnings { code } } } } }`})
	req, _ := http.NewRequest("POST", api.HTTP.URL+"/graphql", strings.NewReader(string(q)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Msgsvc-Workspace", "ws_main")
	req.Header.Set("Msgsvc-Livemode", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Messages struct {
				Items []struct {
					Email struct{ Warnings any }
				}
			}
		}
		Errors any
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data.Messages.Items) == 0 {
		t.Fatalf("GraphQL: %v %+v", err, out)
	}
	return out.Data.Messages.Items[0].Email.Warnings
}
