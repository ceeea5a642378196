package mail_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/emersion/go-message/mail"
)

func TestOneClickUnsubscribe(t *testing.T) {
	api := newLiveEmail(t)
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "dora@example.com", "from": "support@verified.test", "subject": "News", "text": "x"}), 201, "")
	r, err := mail.CreateReader(bytes.NewReader(api.Sink.Mails()[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	link := strings.Trim(r.Header.Get("List-Unsubscribe"), "<>")
	path := strings.TrimPrefix(link, "https://api.msgsvc.test")
	get := func() (int, string) {
		resp, err := http.Get(api.HTTP.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(); code != 200 || !strings.Contains(body, "Unsubscribe dora@example.com?") || !strings.Contains(body, `method="post"`) {
		t.Fatalf("page %d %s", code, body)
	}
	// GET changed nothing: a new thread still goes out.
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "dora@example.com", "from": "support@verified.test", "subject": "More news", "text": "x"}), 201, "")
	resp, err := http.PostForm(api.HTTP.URL+path, url.Values{"List-Unsubscribe": {"One-Click"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("one-click POST %d", resp.StatusCode)
	}
	api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "dora@example.com", "from": "support@verified.test", "subject": "Even more", "text": "x"}), 422, "recipient_unsubscribed")
	if code, body := get(); code != 200 || !strings.Contains(body, "You are unsubscribed") {
		t.Fatalf("page after %d %s", code, body)
	}
	resp, err = http.Get(api.HTTP.URL + path[:len(path)-2] + "xx")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("forged token %d", resp.StatusCode)
	}
}
