package meta_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

func TestClientSendsBearerJSONUnderVersion(t *testing.T) {
	g := metatest.New(t)
	c := g.Config(5 * time.Second).Graph()
	var out struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}
	body := map[string]any{"messaging_product": "whatsapp", "to": "15551234567", "type": "text", "text": map[string]any{"body": "é/"}}
	if err := c.PostJSON(context.Background(), "TOKEN-1", body, &out, "106540352242922", "messages"); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Host != metatest.HostMeta || r.Method != "POST" || r.Path != "/v24.0/106540352242922/messages" {
		t.Fatalf("request %s %s %s", r.Host, r.Method, r.Path)
	}
	if r.Bearer() != "TOKEN-1" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", r.Header)
	}
	if got := r.JSON()["text"].(map[string]any)["body"]; got != "é/" {
		t.Fatalf("body text %v", got)
	}
	if len(out.Messages) != 1 || out.Messages[0].ID != r.AnswerJSON()["messages"].([]any)[0].(map[string]any)["id"] {
		t.Fatalf("answer not decoded: %+v", out)
	}
}

func TestClientDefaultsAndEscaping(t *testing.T) {
	c := meta.Config{}.Graph()
	if c.BaseURL != meta.DefaultGraphURL || c.Version != meta.DefaultVersion || c.Timeout != meta.DefaultTimeout {
		t.Fatalf("defaults: %+v", c)
	}
	if got := (meta.Config{}).Instagram().BaseURL; got != meta.DefaultInstagramURL {
		t.Fatalf("instagram default %s", got)
	}
	c = meta.Config{GraphURL: "http://x.test/", Version: "v21.0"}.Graph()
	if got := c.URL("a/b", "replies"); got != "http://x.test/v21.0/a%2Fb/replies" {
		t.Fatalf("URL %s", got)
	}
}

func TestClientErrorEnvelope(t *testing.T) {
	g := metatest.New(t)
	g.Fail("/messages", 400, 131047, 0, "(#131047) Re-engagement message")
	err := g.Config(time.Second).Graph().PostJSON(context.Background(), "T", map[string]any{}, nil, "1", "messages")
	var e *meta.Error
	if !errors.As(err, &e) || e.Code != 131047 || e.HTTPStatus != 400 || e.FBTraceID == "" || e.Details == "" {
		t.Fatalf("error %#v", err)
	}
	if r := channels.AsRefusal(err); r.Code != apierr.WindowClosed || r.Reason != "131047: Re-engagement message (stand-in details 131047)" {
		t.Fatalf("refusal %+v", r)
	}
}

func TestClientRateLimitHeader(t *testing.T) {
	g := metatest.New(t)
	g.Queue(metatest.Script{PathSuffix: "/messages", Status: 429, Body: metatest.ErrorBody(130429, 0, ""),
		Header: http.Header{"Retry-After": {"9"}}})
	err := g.Config(time.Second).Graph().PostJSON(context.Background(), "T", map[string]any{}, nil, "1", "messages")
	r := channels.AsRefusal(err)
	if r.Code != apierr.ChannelRateLimited || r.RetryAfter != 9*time.Second || r.Hold != channels.HoldAccount {
		t.Fatalf("refusal %+v", r)
	}
}

func TestClientTimeout(t *testing.T) {
	g := metatest.New(t)
	g.Queue(metatest.Script{PathSuffix: "/messages", Delay: 2 * time.Second})
	err := g.Config(50*time.Millisecond).Graph().PostJSON(context.Background(), "T", map[string]any{}, nil, "1", "messages")
	var e *meta.Error
	if !errors.As(err, &e) || !e.Timeout {
		t.Fatalf("error %#v, want a timeout", err)
	}
	if !channels.OutcomeUnknown(err) {
		t.Fatalf("a request written and not answered in time is an unknown outcome: %#v", err)
	}
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable {
		t.Fatalf("refusal %+v", r)
	}
}

// A provider that reads the request and drops the connection may have
// acted on it: the outcome is unknown, not a refusal.
func TestClientDropAfterReadingIsUnknown(t *testing.T) {
	g := metatest.New(t)
	g.Queue(metatest.Script{PathSuffix: "/messages", Drop: true})
	err := g.Config(5*time.Second).Graph().PostJSON(context.Background(), "T", map[string]any{"a": 1}, nil, "1", "messages")
	if !channels.OutcomeUnknown(err) {
		t.Fatalf("error %#v, want an unknown outcome", err)
	}
	if n := len(g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })); n != 1 {
		t.Fatalf("the stand-in saw %d requests, want 1 (a POST is never retried by the transport)", n)
	}
	if channels.OutcomeUnknown(channels.NotSent(err)) {
		t.Fatal("NotSent must make the outcome known")
	}
}

// A TLS handshake that never completes times out before the request is
// written: a refusal (nothing reached the provider), never unknown.
func TestClientTimeoutBeforeWritingIsARefusal(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepted, never answered
		}
	}()
	err = meta.Config{GraphURL: "https://" + l.Addr().String(), Timeout: 100 * time.Millisecond}.Graph().
		PostJSON(context.Background(), "T", map[string]any{}, nil, "1", "messages")
	var e *meta.Error
	if !errors.As(err, &e) || !e.Timeout {
		t.Fatalf("error %#v, want a timeout", err)
	}
	if channels.OutcomeUnknown(err) {
		t.Fatalf("nothing was written, yet the outcome is unknown: %#v", err)
	}
}

func TestClientConnectionErrorAnd5xx(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	err = meta.Config{GraphURL: "http://" + addr, Timeout: time.Second}.Graph().PostJSON(context.Background(), "T", map[string]any{}, nil, "1", "messages")
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || r.Reason != "the provider ("+addr+") could not be reached: connection refused" || channels.OutcomeUnknown(err) {
		t.Fatalf("connection refused: %+v", r)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
	}))
	defer srv.Close()
	err = meta.Config{GraphURL: srv.URL}.Graph().GetJSON(context.Background(), "T", url.Values{"a": {"b"}}, &struct{}{}, "1")
	var e *meta.Error
	if !errors.As(err, &e) || e.HTTPStatus != 502 {
		t.Fatalf("5xx: %#v", err)
	}
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable || r.NeedsReauth ||
		r.Reason != "the provider ("+strings.TrimPrefix(srv.URL, "http://")+") answered HTTP 502" {
		t.Fatalf("5xx refusal %+v", r)
	}
}

func TestClientUndecodableAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("not json"))
	}))
	defer srv.Close()
	var out struct{ ID string }
	err := meta.Config{GraphURL: srv.URL}.Graph().GetJSON(context.Background(), "T", nil, &out, "1")
	if r := channels.AsRefusal(err); r.Code != apierr.ChannelUnavailable {
		t.Fatalf("refusal %+v", r)
	}
}

func TestSignature(t *testing.T) {
	raw := []byte(`{"object":"instagram","entry":[{"id":"1","text":"Ol\u00e1 \/"}]}`)
	header := meta.SignatureValue("app-secret", raw)
	if !meta.VerifySignature("app-secret", raw, header) {
		t.Fatal("a correct signature is refused")
	}
	for name, h := range map[string]string{
		"missing":       "",
		"other secret":  meta.SignatureValue("other", raw),
		"no prefix":     header[len("sha256="):],
		"sha1 prefix":   "sha1=" + header[len("sha256="):],
		"not hex":       "sha256=zz",
		"short":         header[:20],
		"one bit off":   header[:len(header)-1] + string("0123456789abcdef"[(indexHex(header[len(header)-1])+1)%16]),
		"other bytes":   meta.SignatureValue("app-secret", append(raw, ' ')),
		"uppercase hex": "sha256=" + upper(header[len("sha256="):]),
	} {
		want := name == "uppercase hex"
		if got := meta.VerifySignature("app-secret", raw, h); got != want {
			t.Errorf("%s: verified %v, want %v", name, got, want)
		}
		// Only a header of the right form is checked against secrets.
		shaped := !strings.Contains("missing no prefix sha1 prefix not hex short", name)
		if got := meta.SignatureShaped(h); got != shaped {
			t.Errorf("%s: shaped %v, want %v", name, got, shaped)
		}
	}
	if meta.VerifySignature("", raw, meta.SignatureValue("", raw)) {
		t.Error("an empty secret verified a payload")
	}
}

func indexHex(b byte) int {
	for i := range 16 {
		if "0123456789abcdef"[i] == b {
			return i
		}
	}
	return 0
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 32
		}
	}
	return string(b)
}
