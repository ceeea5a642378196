package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/widget"
)

const (
	mainOrigin     = "https://main.test"
	identitySecret = "widget-identity-secret"
)

// widgetAPI is the test API with website chat wired as cmd/msgsvc wires
// it: the commit listener, the website adapter, a hub and the visitor API
// (rate limit per visitor per minute). every is the hub's safety check;
// more configures the API further.
func widgetAPI(t testing.TB, rateLimit int, every time.Duration, more ...func(*resttest.API)) *resttest.API {
	t.Helper()
	key, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	return resttest.New(t, func(a *resttest.API) {
		a.Config.Seal = key
		sealed, err := key.Seal([]byte(identitySecret), visitor.SealAAD("web_main"))
		if err != nil {
			t.Fatal(err)
		}
		err = a.Store.UpsertWebsiteWidget(t.Context(), &repo.WebsiteWidget{WebsiteID: "web_main", WorkspaceID: "ws_main",
			Color: "#0a7cff", Greeting: "Hi! Ask us anything.", IdentitySecretSealed: &sealed})
		if err != nil {
			t.Fatal(err)
		}
		a.Server.Widget = startWidget(t, a, rateLimit, every)
		for _, c := range more {
			c(a)
		}
	})
}

// startWidget wires website chat into one API process.
func startWidget(t testing.TB, a *resttest.API, rateLimit int, every time.Duration) *rest.Widget {
	prefix := a.Prefix + "widget:"
	pub := widget.Publish{Redis: a.Redis, Prefix: prefix}
	a.Reconfigure(func(c *resttest.Config) { c.CommitListener = pub })
	a.Reconfigure(func(c *resttest.Config) { c.Typing = pub })
	a.Reconfigure(func(c *resttest.Config) { c.VisitorTypingFeed = pub })
	a.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"website": widget.Adapter{}} })
	visitors := a.Resolver.Visitors
	hub := &widget.Hub{Visitors: visitors, Redis: a.Redis, Prefix: prefix, Every: every, Clock: a.Resolver.Clock}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go hub.Run(ctx)
	limiter := rest.NewRedisLimiter(a.Redis)
	limiter.Prefix = a.Prefix
	return &rest.Widget{Visitors: visitors, Hub: hub, Publish: pub, Origins: a.Store, Limiter: limiter, RateLimit: rateLimit}
}

// visitorDo calls the visitor API from a page on origin.
func visitorDo(a *resttest.API, method, path, origin, token string, body any) *resttest.Response {
	a.T.Helper()
	h := []string{"Origin", origin}
	if token != "" {
		h = append(h, "Authorization", "Visitor "+token)
	}
	return a.Do(method, path, "", body, h...)
}

func session(a *resttest.API, body map[string]any) map[string]any {
	a.T.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["website_id"] = "web_main"
	r := a.Want(visitorDo(a, "POST", "/widget/v1/sessions", mainOrigin, "", body), 200, "")
	if r.Header.Get("Access-Control-Allow-Origin") != mainOrigin {
		a.T.Fatalf("session: Access-Control-Allow-Origin %q", r.Header.Get("Access-Control-Allow-Origin"))
	}
	return r.Data()
}

// dialWidget opens the widget's WebSocket of a visitor token on base.
func dialWidget(t *testing.T, base, token string) *websocket.Conn {
	t.Helper()
	url := "ws" + strings.TrimPrefix(base, "http") + "/widget/v1/ws?token=" + token
	c, _, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {mainOrigin}}})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// pushFrame is a frame of the widget's WebSocket as a widget reads it.
type pushFrame struct {
	Type            string           `json:"type"`
	Message         *visitor.Message `json:"message"`
	ConversationID  string           `json:"conversation_id"`
	Status          string           `json:"status"`
	RatingRequested *bool            `json:"rating_requested"`
}

// next reads frames until one satisfies ok, failing after 10 s.
func next(t *testing.T, c *websocket.Conn, what string, ok func(pushFrame) bool) pushFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		var p pushFrame
		if err := wsjson.Read(ctx, c, &p); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(p) {
			return p
		}
	}
}

// waitStatus polls a message through the API until it has status.
func waitWidgetStatus(a *resttest.API, id, status string) map[string]any {
	a.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := a.Want(a.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
		if m["status"] == status {
			return m
		}
		if time.Now().After(deadline) {
			a.T.Fatalf("message %s stays %v, want %s", id, m["status"], status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestWidgetVisitorChatOverWebSocket(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	s := session(a, nil)
	token := s["visitor_token"].(string)
	if w := s["widget"].(map[string]any); w["color"] != "#0a7cff" || w["greeting"] != "Hi! Ask us anything." {
		t.Errorf("widget %v", w)
	}
	if s["conversation"] != nil || len(s["messages"].([]any)) != 0 {
		t.Errorf("a new visitor has history: %v", s)
	}
	c := dialWidget(t, a.HTTP.URL, token)

	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "Hello <b>there</b>"}), 201, "").Data()
	convID := in["conversation_id"].(string)
	if in["direction"] != "inbound" || in["sender"].(map[string]any)["type"] != "visitor" || in["text"] != "Hello <b>there</b>" {
		t.Errorf("visitor message %v", in)
	}
	conv := a.Want(a.Do("GET", "/v1/conversations/"+convID, "live_all", nil), 200, "").Data()
	if conv["channel"] != "website" || conv["status"] != "open" || conv["website_id"] != "web_main" {
		t.Errorf("conversation %v", conv)
	}
	a.Want(a.Do("GET", "/v1/conversations/"+convID, "test_all", nil), 404, "conversation_not_found")

	sent := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": convID, "text": "We are here"}), 201, "").Data()
	if sent["status"] != "sent" {
		t.Errorf("reply status %v", sent["status"])
	}
	p := next(t, c, "the reply", func(p pushFrame) bool { return p.Type == "message" })
	if p.Message.ID != sent["id"] || p.Message.Text == nil || *p.Message.Text != "We are here" || p.Message.Direction != "outbound" {
		t.Errorf("pushed %+v", p.Message)
	}
	delivered := waitWidgetStatus(a, sent["id"].(string), "delivered")
	if d := delivered["delivery"].(map[string]any); d["delivered_at"] == nil || d["read_at"] != nil {
		t.Errorf("delivered delivery %v", d)
	}
	if err := wsjson.Write(t.Context(), c, map[string]string{"type": "read", "message_id": sent["id"].(string)}); err != nil {
		t.Fatal(err)
	}
	read := waitWidgetStatus(a, sent["id"].(string), "read")
	if d := read["delivery"].(map[string]any); d["read_at"] == nil {
		t.Errorf("read delivery %v", d)
	}

	a.Want(visitorDo(a, "POST", "/widget/v1/rating", mainOrigin, token, map[string]any{"conversation_id": convID, "score": 5}), 422, "conversation_not_closed")
	a.Want(a.Do("PATCH", "/v1/conversations/"+convID, "live_all", map[string]any{"status": "closed"}), 200, "")
	closed := next(t, c, "the close", func(p pushFrame) bool { return p.Type == "conversation" })
	if closed.ConversationID != convID || closed.Status != "closed" || closed.RatingRequested == nil || !*closed.RatingRequested {
		t.Errorf("close push %+v", closed)
	}
	a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": convID, "text": "late"}), 422, "conversation_closed")
	for _, bad := range []any{0, 6} {
		a.Want(visitorDo(a, "POST", "/widget/v1/rating", mainOrigin, token, map[string]any{"conversation_id": convID, "score": bad}), 400, "invalid_request")
	}
	a.Want(visitorDo(a, "POST", "/widget/v1/rating", mainOrigin, token, map[string]any{"conversation_id": convID, "score": 4, "comment": "quick"}), 201, "")
	a.Want(visitorDo(a, "POST", "/widget/v1/rating", mainOrigin, token, map[string]any{"conversation_id": convID, "score": 5}), 409, "already_rated")

	again := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "one more thing"}), 201, "").Data()
	if again["conversation_id"] == convID {
		t.Errorf("a message after the close joined the closed chat %s", convID)
	}
	resumed := session(a, map[string]any{"visitor_token": token})
	if resumed["visitor_id"] != s["visitor_id"] || resumed["conversation"].(map[string]any)["id"] != again["conversation_id"] {
		t.Errorf("resumed session %v", resumed)
	}
}

func TestWidgetMissedMessagesOnConnect(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "anyone?"}), 201, "").Data()
	var ids []string
	for _, text := range []string{"first", "second"} {
		m := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": in["conversation_id"], "text": text}), 201, "").Data()
		ids = append(ids, m["id"].(string))
	}
	if m := a.Want(a.Do("GET", "/v1/messages/"+ids[0], "live_all", nil), 200, "").Data(); m["status"] != "sent" {
		t.Fatalf("with no widget connected the reply is %v", m["status"])
	}
	c := dialWidget(t, a.HTTP.URL, token)
	for i, id := range ids {
		p := next(t, c, "missed message", func(p pushFrame) bool { return p.Type == "message" })
		if p.Message.ID != id {
			t.Errorf("push %d is %s, want %s (in order)", i, p.Message.ID, id)
		}
	}
	for _, id := range ids {
		waitWidgetStatus(a, id, "delivered")
	}
}

// Two serve processes: the visitor is connected to the second, the reply is
// sent through the first, and Redis pub/sub carries the wake-up (the hubs'
// periodic check is an hour away).
func TestWidgetPushAcrossProcesses(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	srv := secondServe(t, a)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hi"}), 201, "").Data()
	c := dialWidget(t, srv.URL, token)
	// Let the new connection's first check finish before the reply.
	time.Sleep(200 * time.Millisecond)
	sent := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": in["conversation_id"], "text": "from A"}), 201, "").Data()
	p := next(t, c, "the reply through the other process", func(p pushFrame) bool { return p.Type == "message" })
	if p.Message.ID != sent["id"] {
		t.Errorf("pushed %s, sent %s", p.Message.ID, sent["id"])
	}
}

// secondServe is a second serve process over the same database and Redis,
// with its own widget hub.
func secondServe(t *testing.T, a *resttest.API) *httptest.Server {
	second := &rest.Server{Resolver: a.Resolver, Widget: startWidget(t, a, 30, time.Hour)}
	srv := httptest.NewServer(second.Handler())
	t.Cleanup(srv.Close)
	return srv
}

func TestWidgetOriginsAndCORS(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	r := a.Want(visitorDo(a, "POST", "/widget/v1/sessions", "https://evil.test", "", map[string]any{"website_id": "web_main"}), 403, "website_not_allowed")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a refused origin got Access-Control-Allow-Origin %q", r.Header.Get("Access-Control-Allow-Origin"))
	}
	// A domain of another website is no domain of this one.
	r = a.Want(visitorDo(a, "POST", "/widget/v1/sessions", "https://second.test", "", map[string]any{"website_id": "web_main"}), 403, "website_not_allowed")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another website's origin got Access-Control-Allow-Origin")
	}
	a.Want(visitorDo(a, "POST", "/widget/v1/sessions", mainOrigin, "", map[string]any{"website_id": "web_nope"}), 400, "invalid_request")
	token := session(a, nil)["visitor_token"].(string)
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", "https://second.test", token, map[string]any{"text": "x"}), 403, "website_not_allowed")
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, "vt_unknown", map[string]any{"text": "x"}), 401, "invalid_visitor_token")
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, "", map[string]any{"text": "x"}), 401, "invalid_visitor_token")
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "  "}), 400, "text_required")
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": strings.Repeat("é", 4097)}), 400, "invalid_request")
	a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": strings.Repeat("é", 4096)}), 201, "")

	for origin, want := range map[string]int{mainOrigin: 204, "https://second.test": 204, "https://evil.test": 403} {
		r := a.Do("OPTIONS", "/widget/v1/messages", "", nil, "Origin", origin, "Access-Control-Request-Method", "POST")
		acao := r.Header.Get("Access-Control-Allow-Origin")
		if r.Status != want || (want == 204) != (acao == origin) || acao == "*" {
			t.Errorf("preflight from %s: %d with Access-Control-Allow-Origin %q", origin, r.Status, acao)
		}
	}
	url := "ws" + strings.TrimPrefix(a.HTTP.URL, "http") + "/widget/v1/ws?token=" + token
	_, resp, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.test"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("WebSocket from another origin: %v %v", resp, err)
	}
}

func TestWidgetIdentityVerification(t *testing.T) {
	a := widgetAPI(t, 30, time.Hour)
	hash := visitor.UserHash([]byte(identitySecret), "user-42")
	s := session(a, map[string]any{"user_id": "user-42", "user_hash": hash, "email": "u42@example.com", "name": "Ada"})
	if s["identified"] != true {
		t.Fatalf("a valid user_hash is not taken: %v", s)
	}
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, s["visitor_token"].(string), map[string]any{"text": "hi"}), 201, "").Data()
	conv := a.Want(a.Do("GET", "/v1/conversations/"+in["conversation_id"].(string), "live_all", nil), 200, "").Data()
	if ct := conv["contact"].(map[string]any); ct["external_id"] != "user-42" || ct["email"] != "u42@example.com" || ct["name"] != "Ada" {
		t.Errorf("verified contact %v", ct)
	}
	// The same user on another browser sees the same chat.
	other := session(a, map[string]any{"user_id": "user-42", "user_hash": hash})
	if other["visitor_id"] == s["visitor_id"] || other["conversation"].(map[string]any)["id"] != in["conversation_id"] {
		t.Errorf("second browser of the user: %v", other)
	}
	for _, body := range []map[string]any{
		{"user_id": "user-42", "user_hash": strings.Repeat("0", 64), "email": "u42@example.com"},
		{"user_id": "user-42"},
		{"user_id": "user-43", "user_hash": hash},
	} {
		got := session(a, body)
		if got["identified"] != false || got["conversation"] != nil {
			t.Errorf("%v: taken as the user: %v", body, got)
		}
	}
	// A token of the verified user does not resume without the proof.
	if got := session(a, map[string]any{"visitor_token": s["visitor_token"]}); got["visitor_id"] == s["visitor_id"] {
		t.Errorf("the verified user's token resumed anonymously")
	}
}

func TestWidgetRateLimits(t *testing.T) {
	a := widgetAPI(t, 2, time.Hour)
	token := session(a, nil)["visitor_token"].(string)
	for i := 0; i < 2; i++ {
		a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hi"}), 201, "")
	}
	r := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hi"}), 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" || r.Header.Get("Access-Control-Allow-Origin") != mainOrigin {
		t.Errorf("429 headers %v", r.Header)
	}
	wantRetry := "retry after " + r.Header.Get("Retry-After") + " seconds."
	if r.Header.Get("Retry-After") == "1" {
		wantRetry = "retry after 1 second."
	}
	if msg, _ := r.Body["error"].(map[string]any)["message"].(string); !strings.HasSuffix(msg, wantRetry) {
		t.Errorf("429 message %q, want it to end %q", msg, wantRetry)
	}
	// Per IP: four times the visitor limit, every visitor API request counted
	// (the session and three messages above; four more sessions pass the 8).
	var last *resttest.Response
	for i := 0; i < 5; i++ {
		last = visitorDo(a, "POST", "/widget/v1/sessions", mainOrigin, "", map[string]any{"website_id": "web_main"})
	}
	a.Want(last, 429, "rate_limited")
}
