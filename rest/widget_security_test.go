package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// allocated is the bytes the process allocates while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A large body to any visitor route is refused with invalid_request
// without being read or decoded: the call allocates a small fraction of
// the body, whether the body says its length or not.
func TestWidgetLargeBodyCostsLittle(t *testing.T) {
	a := widgetAPI(t, 1000, time.Hour)
	token := session(a, nil)["visitor_token"].(string)
	h := a.Server.Handler()
	big := []byte(`{"website_id":"web_main","name":"` + strings.Repeat("a", 14<<20) + `"}`)
	for _, path := range []string{"/widget/v1/sessions", "/widget/v1/messages", "/widget/v1/rating"} {
		for _, chunked := range []bool{false, true} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("POST", path, bytes.NewReader(big))
			if chunked {
				r.Body = io.NopCloser(bytes.NewReader(big)) // no length known
				r.ContentLength = -1
			}
			r.Header.Set("Origin", mainOrigin)
			r.Header.Set("Authorization", "Visitor "+token)
			n := allocated(func() { h.ServeHTTP(w, r) })
			var body struct {
				Error struct{ Code string }
			}
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != http.StatusBadRequest || body.Error.Code != "invalid_request" {
				t.Errorf("%s (chunked %v): %d %s", path, chunked, w.Code, w.Body)
			}
			if n > 2<<20 {
				t.Errorf("%s (chunked %v): a %d MB body cost %d KB", path, chunked, len(big)>>20, n>>10)
			}
		}
	}
}

// A verified user_id equal to an anonymous visitor's id (the website
// vouches for whatever ids its users have) never reaches that visitor's
// contact and chat: anonymous visitors' ids are a namespace of their own.
func TestWidgetVerifiedUserIsNoAnonymousVisitor(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	anon := session(a, nil)
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, anon["visitor_token"].(string), map[string]any{"text": "my secret"}), 201, "")
	id := anon["visitor_id"].(string)
	r := visitorDo(a, "POST", "/widget/v1/sessions", mainOrigin, "", map[string]any{"website_id": "web_main",
		"user_id": id, "user_hash": visitor.UserHash([]byte(identitySecret), id)})
	a.Want(r, 400, "invalid_request")
	if msg := r.Body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "vis_") {
		t.Errorf("the refusal does not say why: %q", msg)
	}
}

// countContacts is the live contacts of the main workspace and its
// contact.created events.
func countContacts(a *resttest.API) (contacts, created int) {
	a.T.Helper()
	if err := a.Store.DB.Get(&contacts, `SELECT count(*) FROM contacts WHERE workspace_id = 'ws_main' AND livemode`); err != nil {
		a.T.Fatal(err)
	}
	for _, e := range a.Events("ws_main") {
		if e.Type == "contact.created" {
			created++
		}
	}
	return contacts, created
}

// A session that never writes stores no contact and records no
// contact.created; the first message does both, with the session's name,
// and the visitor's socket, opened before, gets the reply.
func TestWidgetContactOnFirstMessage(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	contacts, created := countContacts(a)
	for range 3 {
		session(a, map[string]any{"name": "Just looking"})
	}
	s := session(a, map[string]any{"name": "Ada"})
	token := s["visitor_token"].(string)
	c := dialWidget(t, a.HTTP.URL, token)
	if n, e := countContacts(a); n != contacts || e != created {
		t.Fatalf("sessions without a message made %d contacts and %d contact.created", n-contacts, e-created)
	}
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hi"}), 201, "").Data()
	if n, e := countContacts(a); n != contacts+1 || e != created+1 {
		t.Fatalf("the first message made %d contacts and %d contact.created, want 1 and 1", n-contacts, e-created)
	}
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "again"}), 201, "")
	conv := a.Want(a.Do("GET", "/v1/conversations/"+in["conversation_id"].(string), "live_all", nil), 200, "").Data()
	if ct := conv["contact"].(map[string]any); ct["name"] != "Ada" || ct["external_id"] != s["visitor_id"] || conv["message_count"] != float64(2) {
		t.Errorf("the visitor's chat %v", conv)
	}
	sent := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": in["conversation_id"], "text": "hello Ada"}), 201, "").Data()
	if p := next(t, c, "the reply", func(p pushFrame) bool { return p.Type == "message" }); p.Message.ID != sent["id"] {
		t.Errorf("pushed %s, want %s", p.Message.ID, sent["id"])
	}
}

// A verified user's browser that has not written yet shares the chat its
// other browser started, once it comes back.
func TestWidgetVerifiedUserBrowsersShareTheChat(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	hash := visitor.UserHash([]byte(identitySecret), "user-7")
	first := session(a, map[string]any{"user_id": "user-7", "user_hash": hash})
	second := session(a, map[string]any{"user_id": "user-7", "user_hash": hash})
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, second["visitor_token"].(string), map[string]any{"text": "hi"}), 201, "").Data()
	back := session(a, map[string]any{"user_id": "user-7", "user_hash": hash, "visitor_token": first["visitor_token"]})
	if back["visitor_id"] != first["visitor_id"] || back["conversation"] == nil || back["conversation"].(map[string]any)["id"] != in["conversation_id"] {
		t.Errorf("the first browser, back: %v", back)
	}
}
