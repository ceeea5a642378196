package mail_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
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

// TestInboundDisplayProxy: with MSGSVC_EMAIL_REMOTE_IMAGES=proxy a remote
// image's src is msgsvc's signed link, which serves the image's bytes; a
// tampered link is refused, a page is not passed on as an image, and the
// default client does not reach a loopback address.
func TestInboundDisplayProxy(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" || r.Header.Get("Referer") != "" {
			t.Errorf("the proxy passed on %v", r.Header)
		}
		if r.URL.Path == "/page" {
			_, _ = io.WriteString(w, "<html><script>alert(1)</script></html>")
			return
		}
		_, _ = io.WriteString(w, png)
	}))
	defer remote.Close()
	api := newLiveEmail(t, func(a *resttest.API) {
		a.Config.EmailRemoteImages = "proxy"
		a.Config.EmailImageClient = remote.Client()
	})
	addr := listen(t, api)
	mail := "From: ada@example.com\r\nTo: support@verified.test\r\nSubject: Pixels\r\nContent-Type: text/html\r\n\r\n" +
		"<img src=\"" + remote.URL + "/p.png?a=1&b=2\"><img src=\"" + remote.URL + "/page\">\r\n"
	if err := deliver(t, api, addr, "ada@example.com", []string{"support@verified.test"}, []byte(mail)); err != nil {
		t.Fatal(err)
	}
	m := list(api.Do("GET", "/v1/conversations/"+conversationOf(t, api, "ada@example.com")["id"].(string)+"/messages", "live_all", nil))[0]
	links := regexp.MustCompile(`src="([^"]+)"`).FindAllStringSubmatch(m["html"].(string), -1)
	if len(links) != 2 || !strings.HasPrefix(links[0][1], "https://api.msgsvc.test/v1/email/images?url=") {
		t.Fatalf("html %s", m["html"])
	}
	image := strings.ReplaceAll(links[0][1], "&amp;", "&")
	if status, b := get(t, api, image); status != 200 || string(b) != png {
		t.Errorf("proxied image: %d %q", status, b)
	}
	if status, _ := get(t, api, image+"0"); status != 403 {
		t.Errorf("tampered link: %d", status)
	}
	if status, b := get(t, api, strings.ReplaceAll(links[1][1], "&amp;", "&")); status != 404 || !strings.Contains(string(b), "not a PNG") {
		t.Errorf("a page: %d %s", status, b)
	}
	api.Reconfigure(func(c *resttest.Config) { c.EmailImageClient = nil })
	if status, b := get(t, api, image); status != 404 || !strings.Contains(string(b), "loopback") {
		t.Errorf("loopback with the default client: %d %s", status, b)
	}
}
