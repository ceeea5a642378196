package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// igConnectAPI is the API with the Instagram adapter on the stand-in, which
// knows one Instagram Login account and one Page-linked account, and
// /hooks/meta on; nothing is connected yet.
func igConnectAPI(t *testing.T) (*igHooks, *metatest.Server) {
	t.Helper()
	h := newIGAPI(t)
	h.graph.AddInstagramAccount(metatest.InstagramAccount{IGUserID: igUser, Username: "acme", Token: igToken, PageID: igPage, PageToken: fbToken})
	return h, h.graph
}

const igConnectionFields = `{ accountId status connected providerAccountId login igUserId pageId appSecretSet tokenIssuedAt tokenExpiresAt }`

// Instagram Login: the token's /me must be ig_user_id; the account's
// webhooks are subscribed (fields as docs/instagram.md lists them) and the
// outcome shows in GET /v1/channels.
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started (GET /me)
// https://developers.facebook.com/docs/instagram-platform/webhooks (POST /{ig_user_id}/subscribed_apps)
func TestConnectInstagramLoginVerifiesAndSubscribes(t *testing.T) {
	t.Parallel()
	h, g := igConnectAPI(t)
	connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "instagram", igUserId: "17841400000000001", accessToken: "`+igToken+`"}) `+igConnectionFields+` }`, "invalid_request")
	status, body := graphql(t, h.API, "admin-token", "ws_main", `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "instagram", igUserId: "17841400000000001", accessToken: "`+igToken+`"}) { accountId } }`)
	if msg := graphqlErrorMessage(body); status != 200 || !strings.Contains(msg, "input.igUserId") || !strings.Contains(msg, igUser) {
		t.Fatalf("mismatch answered %d %q", status, msg)
	}
	if n := len(g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/subscribed_apps") })); n != 0 {
		t.Fatalf("a refused connect subscribed %d times", n)
	}
	connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "instagram", igUserId: "`+igUser+`", accessToken: "IGQV-not-a-token"}) { accountId } }`, "invalid_request")

	got := connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "instagram", igUserId: "`+igUser+`", accessToken: "`+igToken+`"}) `+igConnectionFields+` }`, "")
	if got["connected"] != true || got["providerAccountId"] != igUser || got["igUserId"] != igUser || got["tokenIssuedAt"] != "2026-10-15T12:00:00.000Z" || got["tokenExpiresAt"] != nil {
		t.Fatalf("connected: %v", got)
	}
	subs := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/subscribed_apps") })
	if len(subs) != 1 || subs[0].Host != metatest.HostInstagram || subs[0].Method != http.MethodPost || subs[0].Path != "/v24.0/"+igUser+"/subscribed_apps" ||
		subs[0].Bearer() != igToken || subs[0].Query.Get("subscribed_fields") != "messages,messaging_postbacks,messaging_referral,messaging_seen,message_reactions,message_edit,comments,live_comments" {
		t.Fatalf("subscription calls %+v", subs)
	}
	sub := igAccount(t, h.API)["subscription"].(map[string]any)
	if sub["status"] != "ok" || sub["error"] != nil || sub["at"] == nil {
		t.Fatalf("subscription %v", sub)
	}
	// A rotated token is checked the same way: another account's is refused
	// and the stored one kept.
	g.AddInstagramAccount(metatest.InstagramAccount{IGUserID: "17841400000000002", Username: "other", Token: "IGQV-other"})
	connection(t, h.API, `mutation { rotateChannelToken(accountId: "ig_main", accessToken: "IGQV-other") { accountId } }`, "invalid_request")
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.rot-1", h.Clock.Now(), map[string]any{"text": "after the rotation"}))
	conv := h.one("message.received", "after the rotation")["conversation_id"]
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "ok"}), 201, "")
	if sends := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") }); len(sends) != 1 || sends[0].Bearer() != igToken {
		t.Fatalf("sends after a refused rotation %+v", sends)
	}
}

// A subscription Meta refuses leaves the account connected, the refusal
// on it.
func TestConnectInstagramSubscriptionFailureShows(t *testing.T) {
	t.Parallel()
	h, g := igConnectAPI(t)
	g.Fail("/subscribed_apps", 403, 200, 0, "(#200) Requires instagram_business_manage_messages permission")
	got := connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {igUserId: "`+igUser+`", accessToken: "`+igToken+`"}) `+igConnectionFields+` }`, "")
	if got["connected"] != true {
		t.Fatalf("connected: %v", got)
	}
	sub := igAccount(t, h.API)["subscription"].(map[string]any)
	if sub["status"] != "failed" || !strings.Contains(sub["error"].(string), "200: Requires instagram_business_manage_messages permission") {
		t.Fatalf("subscription %v", sub)
	}
	if strings.Contains(sub["error"].(string), igToken) {
		t.Fatal("the error carries the token")
	}
}

// Facebook Login with only page_id: the Instagram account id is read from
// the Page (instagram_business_account) and stored; a webhook whose
// entry[].id is that id (as Meta sends it on both logins) reaches the
// account, and the Page is subscribed.
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login/get-started
// https://developers.facebook.com/docs/instagram-platform/webhooks/examples (entry.id: the Instagram professional account id)
// chatwoot/chatwoot app/jobs/webhooks/instagram_events_job.rb routes entry[:id] as the instagram_id for both channel kinds.
func TestConnectFacebookLoginReadsTheInstagramID(t *testing.T) {
	t.Parallel()
	h, g := igConnectAPI(t)
	connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "facebook", pageId: "`+igPage+`", igUserId: "17841400000000001", accessToken: "`+fbToken+`"}) { accountId } }`, "invalid_request")
	got := connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {login: "facebook", pageId: "`+igPage+`", accessToken: "`+fbToken+`"}) `+igConnectionFields+` }`, "")
	if got["igUserId"] != igUser || got["providerAccountId"] != igUser || got["pageId"] != igPage || got["login"] != "facebook" {
		t.Fatalf("connected: %v", got)
	}
	reads := g.Requests(func(r metatest.Request) bool { return r.Method == http.MethodGet && r.Path == "/v24.0/"+igPage })
	if len(reads) != 2 || reads[1].Host != metatest.HostMeta || reads[1].Query.Get("fields") != "instagram_business_account" || reads[1].Bearer() != fbToken {
		t.Fatalf("page reads %+v", reads)
	}
	subs := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/subscribed_apps") })
	if len(subs) != 1 || subs[0].Host != metatest.HostMeta || subs[0].Path != "/v24.0/"+igPage+"/subscribed_apps" || subs[0].Query.Get("subscribed_fields") != "messages" {
		t.Fatalf("subscription calls %+v", subs)
	}
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.fb-1", h.Clock.Now(), map[string]any{"text": "hello via facebook login"}))
	h.one("message.received", "hello via facebook login")
	conv := h.one("message.received", "hello via facebook login")["conversation_id"]
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "page reply"}), 201, "")
	sends := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if len(sends) != 1 || sends[0].Host != metatest.HostMeta || sends[0].Path != "/v24.0/"+igPage+"/messages" {
		t.Fatalf("sends %+v", sends)
	}
}

func graphqlErrorMessage(body map[string]any) string {
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	msg, _ := errs[0].(map[string]any)["message"].(string)
	return msg
}

// igAccount is ig_main as GET /v1/channels lists it.
func igAccount(t *testing.T, api *resttest.API) map[string]any {
	t.Helper()
	data := api.Want(api.Do("GET", "/v1/channels", "live_all", nil), 200, "").Data()
	for _, a := range data["instagram"].([]any) {
		if a.(map[string]any)["id"] == "ig_main" {
			return a.(map[string]any)
		}
	}
	t.Fatal("no ig_main in GET /v1/channels")
	return nil
}
