package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

const (
	igAppSecret = "meta-app-secret-for-tests"
	igUser      = "17841405822304914"
	igPage      = "104000000000001"
	igToken     = "IGQV-test-token"
	fbToken     = "EAAB-test-page-token"
	igCustomer  = "IGSID-5551234"
)

// igHooks is the API with /hooks/meta on, ig_main connected with creds,
// and the Instagram adapter on the Graph stand-in.
type igHooks struct {
	*resttest.API
	graph *metatest.Server
}

func newIGHooks(t *testing.T, creds channels.Credentials) *igHooks {
	t.Helper()
	h := newIGAPI(t)
	row, err := credentials.Vault{Key: h.Resolver.Seal}.Seal("ws_main", "ig_main", "instagram", creds, h.Clock.Now())
	if err == nil {
		err = h.Store.UpsertAccountProvider(t.Context(), row)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// newIGAPI is the API with /hooks/meta on, a sealing key, and the
// Instagram adapter on the Graph stand-in; nothing is connected.
func newIGAPI(t *testing.T) *igHooks {
	t.Helper()
	g := metatest.New(t)
	api := resttest.New(t)
	api.Server.Meta = rest.MetaHooks{AppSecret: igAppSecret, VerifyToken: "verify"}
	key, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	api.Reconfigure(func(c *resttest.Config) { c.Seal = key })
	api.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"instagram": instagram.New(g.Config(2 * time.Second))}
	})
	return &igHooks{API: api, graph: g}
}

// post signs the payload as Meta does and posts it to /hooks/meta.
func (h *igHooks) post(payload any, signature ...string) int {
	h.T.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		h.T.Fatal(err)
	}
	sig := meta.SignatureValue(igAppSecret, raw)
	if len(signature) > 0 {
		sig = signature[0]
	}
	req, _ := http.NewRequest(http.MethodPost, h.HTTP.URL+"/hooks/meta", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(meta.SignatureHeader, sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// deliver posts a payload, wants 200, and runs the job it queues.
func (h *igHooks) deliver(payload any) {
	h.T.Helper()
	if status := h.post(payload); status != http.StatusOK {
		h.T.Fatalf("/hooks/meta answered %d", status)
	}
	if err := h.process(); err != nil {
		h.T.Fatal(err)
	}
}

// process runs the job of every stored hook not yet processed.
func (h *igHooks) process() error {
	h.T.Helper()
	var ids []string
	if err := h.Store.DB.Select(&ids, `SELECT id FROM provider_hooks WHERE processed_at IS NULL ORDER BY received_at, id`); err != nil {
		h.T.Fatal(err)
	}
	for _, id := range ids {
		if err := h.Resolver.MetaHooks.Process(h.T.Context(), id); err != nil {
			return err
		}
	}
	return nil
}

// eventsOf are the recorded events of a type whose message has the text.
func (h *igHooks) eventsOf(typ, text string) []map[string]any {
	var out []map[string]any
	for _, e := range h.Events("ws_main") {
		data, _ := e.Envelope["data"].(map[string]any)
		if e.Type == typ && data["text"] == text {
			out = append(out, data)
		}
	}
	return out
}

// one wants exactly one event of a type with the text, and returns it.
func (h *igHooks) one(typ, text string) map[string]any {
	h.T.Helper()
	got := h.eventsOf(typ, text)
	if len(got) != 1 {
		h.T.Fatalf("%d %s events with text %q, want 1", len(got), typ, text)
	}
	return got[0]
}

// igDM is a messaging webhook as channels.md 2.5 shows it.
func igDM(entry, sender, recipient, mid string, at time.Time, message map[string]any) map[string]any {
	message["mid"] = mid
	return map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": entry, "time": at.Unix(),
		"messaging": []any{map[string]any{"sender": map[string]any{"id": sender}, "recipient": map[string]any{"id": recipient},
			"timestamp": at.UnixMilli(), "message": message}}}}}
}

func igCommentHook(entry, field, commentID, from, media, text string, at time.Time) map[string]any {
	return map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": entry, "time": at.Unix(),
		"changes": []any{map[string]any{"field": field, "value": map[string]any{"id": commentID, "text": text,
			"from":  map[string]any{"id": from, "username": "ana"},
			"media": map[string]any{"id": media, "media_product_type": "FEED"}}}}}}}
}

func TestInstagramInboundDMs(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	h.graph.AddMedia("att-1", png, "image/png", igToken, "")
	at := h.Clock.Now().Add(-time.Minute)
	dm := igDM(igUser, igCustomer, igUser, "mid.in-1", at, map[string]any{"text": "hi, a photo",
		"attachments": []any{map[string]any{"type": "image", "payload": map[string]any{"url": h.graph.Instagram.URL + "/media-files/att-1"}}}})

	// A wrong signature stores nothing.
	if status := h.post(dm, "sha256="+string(bytes.Repeat([]byte("0"), 64))); status != http.StatusUnauthorized {
		t.Fatalf("wrong signature: %d", status)
	}
	h.deliver(dm)
	got := h.one("message.received", "hi, a photo")
	if got["channel"] != "instagram" || got["direction"] != "inbound" || got["type"] != "text" {
		t.Fatalf("message %v", got)
	}
	atts, _ := got["attachments"].([]any)
	if len(atts) != 1 || atts[0].(map[string]any)["content_type"] != "image/png" || atts[0].(map[string]any)["size"] != float64(len(png)) {
		t.Fatalf("attachments %v", atts)
	}
	var content []byte
	if err := h.Store.DB.Get(&content, `SELECT content FROM files WHERE id = $1`, atts[0].(map[string]any)["id"]); err != nil || !bytes.Equal(content, png) {
		t.Fatalf("stored file %d bytes, %v", len(content), err)
	}
	fetches := h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/media-files/att-1" })
	if len(fetches) != 1 || fetches[0].Method != http.MethodGet || fetches[0].Bearer() != igToken {
		t.Fatalf("attachment fetches %+v", fetches)
	}
	conv := got["conversation_id"].(string)
	c := h.Want(h.Do("GET", "/v1/conversations/"+conv, "live_all", nil), 200, "").Data()
	if c["channel"] != "instagram" || c["status"] != "open" {
		t.Fatalf("conversation %v", c)
	}

	// Meta retries the same payload: nothing is created twice, nothing fetched again.
	h.deliver(dm)
	h.one("message.received", "hi, a photo")
	if n := len(h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/media-files/att-1" })); n != 1 {
		t.Fatalf("the retry fetched the attachment again (%d fetches)", n)
	}

	// Our own send comes back as an echo: ignored.
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "our reply"}), 201, "").Data()
	call := h.graph.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+igUser+"/messages" })
	if len(call) != 1 || call[0].Bearer() != igToken || call[0].Host != metatest.HostInstagram {
		t.Fatalf("send requests %+v", call)
	}
	metatest.SameJSON(t, call[0].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"message":{"text":"our reply"}}`)
	mid := call[0].AnswerJSON()["message_id"].(string)
	h.deliver(igDM(igUser, igUser, igCustomer, mid, h.Clock.Now(), map[string]any{"text": "our reply", "is_echo": true}))
	if n := len(h.eventsOf("message.sent", "our reply")); n != 1 {
		t.Fatalf("%d message.sent for our reply, want the send's only", n)
	}
	if msgs := h.Want(h.Do("GET", "/v1/conversations/"+conv+"/messages", "live_all", nil), 200, "").Items(); len(msgs) != 2 {
		t.Fatalf("%d messages after our echo, want 2", len(msgs))
	}

	// A message sent from the Instagram app is recorded, once.
	app := igDM(igUser, igUser, igCustomer, "mid.app-1", h.Clock.Now(), map[string]any{"text": "from the app", "is_echo": true})
	h.deliver(app)
	h.deliver(app)
	echo := h.one("message.sent", "from the app")
	sender, _ := echo["sender"].(map[string]any)
	delivery, _ := echo["delivery"].(map[string]any)
	if echo["direction"] != "outbound" || echo["status"] != "sent" || sender["type"] != "instagram_app" ||
		delivery["provider_message_id"] != "mid.app-1" || echo["conversation_id"] != conv {
		t.Fatalf("app echo %v", echo)
	}
	if len(h.eventsOf("message.received", "from the app")) != 0 {
		t.Fatal("an echo was taken as the customer's message")
	}

	// The customer unsends the first DM: deleted, message.status once.
	unsend := igDM(igUser, igCustomer, igUser, "mid.in-1", h.Clock.Now(), map[string]any{"is_deleted": true})
	h.deliver(unsend)
	h.deliver(unsend)
	m := h.Want(h.Do("GET", "/v1/messages/"+got["id"].(string), "live_all", nil), 200, "").Data()
	if m["deleted"] != true {
		t.Fatalf("unsent message %v", m)
	}
	if st := h.eventsOf("message.status", "hi, a photo"); len(st) != 1 || st[0]["deleted"] != true {
		t.Fatalf("message.status events %v", st)
	}
	if other := h.Want(h.Do("GET", "/v1/messages/"+sent["id"].(string), "live_all", nil), 200, "").Data(); other["deleted"] != nil {
		t.Fatalf("a message not unsent shows deleted: %v", other["deleted"])
	}
}

func TestInstagramLiveCommentsOnce(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	live := igCommentHook(igUser, "live_comments", "17900000000000001", igCustomer, "17800000000000001", "hello from the stream", h.Clock.Now())
	h.deliver(live)
	h.deliver(live)
	c := h.one("message.received", "hello from the stream")
	if c["type"] != "comment" {
		t.Fatalf("live comment %v", c)
	}
	conv := h.Want(h.Do("GET", "/v1/conversations/"+c["conversation_id"].(string), "live_all", nil), 200, "").Data()
	if conv["channel"] != "instagram" {
		t.Fatalf("conversation %v", conv)
	}
}

// Facebook Login: entry[].id names the Page or the Instagram account; both
// reach the account, replies go to the Page node on the Meta host.
func TestInstagramFacebookLoginRouting(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "facebook", IGUserID: igUser, PageID: igPage, AccessToken: fbToken})
	h.deliver(igDM(igPage, igCustomer, igPage, "mid.page-1", h.Clock.Now(), map[string]any{"text": "via the page id"}))
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.page-2", h.Clock.Now(), map[string]any{"text": "via the ig id"}))
	h.deliver(igDM("17841499999999999", igCustomer, "17841499999999999", "mid.page-3", h.Clock.Now(), map[string]any{"text": "someone else's"}))
	first, second := h.one("message.received", "via the page id"), h.one("message.received", "via the ig id")
	if first["conversation_id"] != second["conversation_id"] {
		t.Fatalf("two conversations for one customer: %v, %v", first["conversation_id"], second["conversation_id"])
	}
	if n := len(h.eventsOf("message.received", "someone else's")); n != 0 {
		t.Fatal("a DM of an unknown account was stored")
	}
	// Our public reply comes back as a comment by the Instagram account,
	// in an entry named by the Page: not a customer's comment.
	h.deliver(igCommentHook(igPage, "comments", "17900000000000077", igUser, "17800000000000077", "our public reply", h.Clock.Now()))
	if n := len(h.eventsOf("message.received", "our public reply")); n != 0 {
		t.Fatal("the account's own comment was stored as a customer's")
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": first["conversation_id"], "text": "page reply"}), 201, "")
	reqs := h.graph.Requests(nil)
	if len(reqs) != 1 || reqs[0].Host != metatest.HostMeta || reqs[0].Path != "/v24.0/"+igPage+"/messages" || reqs[0].Bearer() != fbToken {
		t.Fatalf("requests %+v", reqs)
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"recipient":{"id":"`+igCustomer+`"},"message":{"text":"page reply"}}`)

	// A private reply on this login goes to the Page node too.
	conv := h.comment(igUser, "17865799348089101", h.Clock.Now())
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "see DMs", "reply_as": "dm"}), 201, "")
	reqs = h.graph.Requests(nil)
	last := reqs[len(reqs)-1]
	if len(reqs) != 2 || last.Host != metatest.HostMeta || last.Path != "/v24.0/"+igPage+"/messages" || last.Bearer() != fbToken {
		t.Fatalf("private reply %s %s", last.Host, last.Path)
	}
	metatest.SameJSON(t, last.JSON(), `{"recipient":{"comment_id":"17865799348089101"},"message":{"text":"see DMs"}}`)
}

// An echo that arrives while a send to the customer awaits its ids is
// processed again later, and then recorded only if it is not ours.
func TestInstagramEchoDuringASend(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.in-9", h.Clock.Now(), map[string]any{"text": "hello"}))
	sent := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": h.one("message.received", "hello")["conversation_id"], "text": "wait"}), 201, "").Data()
	dbExec(t, h.API, `UPDATE messages SET status = 'sending' WHERE id = $1`, sent["id"])
	if status := h.post(igDM(igUser, igUser, igCustomer, "mid.app-9", h.Clock.Now(), map[string]any{"text": "typed in the app", "is_echo": true})); status != 200 {
		t.Fatal(status)
	}
	if err := h.process(); err == nil {
		t.Fatal("an echo during a send was processed at once")
	}
	if n := len(h.eventsOf("message.sent", "typed in the app")); n != 0 {
		t.Fatal("the echo was recorded during the send")
	}
	dbExec(t, h.API, `UPDATE messages SET status = 'sent' WHERE id = $1`, sent["id"])
	if err := h.process(); err != nil {
		t.Fatal(err)
	}
	h.one("message.sent", "typed in the app")
}

// comment delivers a comment of igCustomer on its own media, written at,
// and returns its conversation.
func (h *igHooks) comment(entry, commentID string, at time.Time) string {
	h.T.Helper()
	text := "price? " + commentID
	h.deliver(igCommentHook(entry, "comments", commentID, igCustomer, "media-"+commentID, text, at))
	return h.one("message.received", text)["conversation_id"].(string)
}

// Private replies: Meta's refusals mapped, a refused one
// leaves the comment's one reply unused, and the 7 days and the once are
// kept locally on the injected clock, without a provider call.
func TestInstagramPrivateReplies(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	dm := func(conv string) *resttest.Response {
		return sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "Sent you the price", "reply_as": "dm"})
	}
	calls := func() int { return len(h.graph.Requests(nil)) }

	conv := h.comment(igUser, "17865799348089001", h.Clock.Now())
	h.graph.Fail("/messages", 400, 10, 2018278, "(#10) This message is sent outside of allowed window.")
	h.Want(dm(conv), 422, "window_closed")
	h.Want(dm(conv), 201, "")
	reqs := h.graph.Requests(nil)
	last := reqs[len(reqs)-1]
	if last.Host != metatest.HostInstagram || last.Path != "/v24.0/"+igUser+"/messages" || last.Bearer() != igToken {
		t.Fatalf("private reply went to %s %s", last.Host, last.Path)
	}
	metatest.SameJSON(t, last.JSON(), `{"recipient":{"comment_id":"17865799348089001"},"message":{"text":"Sent you the price"}}`)
	before := calls()
	h.Want(dm(conv), 422, "private_reply_used")
	if calls() != before {
		t.Fatal("a second private reply reached Meta")
	}

	h.graph.Fail("/messages", 400, 551, 0, "(#551) This person isn't available right now.")
	h.Want(dm(h.comment(igUser, "17865799348089002", h.Clock.Now())), 422, "recipient_unreachable")

	h.graph.Fail("/messages", 400, 4, 0, "(#4) Application request limit reached")
	limited := h.Want(dm(h.comment(igUser, "17865799348089003", h.Clock.Now())), 429, "channel_rate_limited")
	if limited.Header.Get("Retry-After") != "60" {
		t.Fatalf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
	h.Clock.Advance(61 * time.Second)

	// The 7 days run from the comment's own time, on the injected clock.
	old := h.comment(igUser, "17865799348089004", h.Clock.Now().Add(-7*24*time.Hour))
	recent := h.comment(igUser, "17865799348089005", h.Clock.Now().Add(-7*24*time.Hour+time.Minute))
	before = calls()
	h.Want(dm(old), 422, "private_reply_expired")
	if calls() != before {
		t.Fatal("an expired private reply reached Meta")
	}
	h.Want(dm(recent), 201, "")
	later := h.comment(igUser, "17865799348089006", h.Clock.Now())
	h.Clock.Advance(7 * 24 * time.Hour)
	h.Want(dm(later), 422, "private_reply_expired")

	h.graph.Fail("/messages", 400, 190, 0, "Error validating access token")
	h.Want(dm(h.comment(igUser, "17865799348089007", h.Clock.Now())), 503, "channel_unavailable")
	channelsNow := h.Want(h.Do("GET", "/v1/channels", "live_all", nil), 200, "").Data()
	accs, _ := channelsNow["instagram"].([]any)
	if len(accs) != 1 || accs[0].(map[string]any)["status"] != "needs_reauth" {
		t.Fatalf("instagram accounts %v", accs)
	}
}
