package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// Instagram Login tokens are refreshed on the injected clock: not before
// they are 24 hours old, then (expiry unknown) at once, then within 10
// days of the expiry Meta gave; each new token is stored sealed and sends
// use it. A refresh Meta answers with a 5xx changes nothing; one that
// rejects the token (190) makes the account needs_reauth.
// https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token
func TestInstagramTokenRefresh(t *testing.T) {
	t.Parallel()
	h, g := igConnectAPI(t)
	connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {igUserId: "`+igUser+`", accessToken: "`+igToken+`"}) { accountId } }`, "")
	refreshes := func() []metatest.Request {
		return g.Requests(func(r metatest.Request) bool { return r.Path == "/refresh_access_token" })
	}
	refresh := func() {
		t.Helper()
		if err := h.Resolver.InstagramTokens.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	start := h.Clock.Now()
	h.Clock.Advance(23 * time.Hour)
	refresh()
	if n := len(refreshes()); n != 0 {
		t.Fatalf("a token under 24 hours old was refreshed (%d calls)", n)
	}
	h.Clock.Advance(2 * time.Hour)
	refresh()
	calls := refreshes()
	if len(calls) != 1 || calls[0].Host != metatest.HostInstagram || calls[0].Method != http.MethodGet ||
		calls[0].Query.Get("grant_type") != "ig_refresh_token" || calls[0].Query.Get("access_token") != igToken {
		t.Fatalf("refresh calls %+v", calls)
	}
	newToken := g.InstagramToken(igUser)
	var sealed string
	if err := h.Store.DB.Get(&sealed, `SELECT sealed FROM account_providers WHERE account_id = 'ig_main'`); err != nil || strings.Contains(sealed, "IGQV") {
		t.Fatalf("stored %q (%v)", sealed, err)
	}
	got := connection(t, h.API, `{ channelConnection(accountId: "ig_main") `+igConnectionFields+` }`, "")
	wantExpiry := start.Add(25*time.Hour + metatest.ExpiresIn*time.Second).Format("2006-01-02T15:04:05.000Z")
	if got["tokenExpiresAt"] != wantExpiry || got["tokenIssuedAt"] != start.Add(25*time.Hour).Format("2006-01-02T15:04:05.000Z") {
		t.Fatalf("after the refresh: %v, want expiry %s", got, wantExpiry)
	}
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.tok-1", h.Clock.Now(), map[string]any{"text": "still there?"}))
	conv := h.one("message.received", "still there?")["conversation_id"]
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "yes"}), 201, "")
	sends := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if len(sends) != 1 || sends[0].Bearer() != newToken {
		t.Fatalf("the send used %q, want the refreshed token", sends[0].Bearer())
	}

	// 49 days on, 11 days are left: nothing; a day later, 10: refreshed.
	h.Clock.Advance(49 * 24 * time.Hour)
	refresh()
	if n := len(refreshes()); n != 1 {
		t.Fatalf("refreshed %d times 11 days before the expiry", n)
	}
	h.Clock.Advance(24 * time.Hour)
	g.Queue(metatest.Script{Method: http.MethodGet, PathSuffix: "/refresh_access_token", Status: 500,
		Body: metatest.ErrorBody(2, 0, "An unexpected error has occurred. Please retry your request later.")})
	refresh()
	if acc := igAccount(t, h.API); acc["status"] != "connected" {
		t.Fatalf("a 500 on refresh changed the account: %v", acc)
	}
	refresh()
	if n := len(refreshes()); n != 3 || g.InstagramToken(igUser) == newToken {
		t.Fatalf("%d refresh calls; the token was not renewed after the 500", n)
	}

	// Meta rejects the token: needs_reauth.
	h.Clock.Advance(55 * 24 * time.Hour)
	g.Queue(metatest.Script{Method: http.MethodGet, PathSuffix: "/refresh_access_token", Status: 400,
		Body: metatest.ErrorBody(190, 463, "Error validating access token: Session has expired")})
	refresh()
	if acc := igAccount(t, h.API); acc["status"] != "needs_reauth" {
		t.Fatalf("a rejected refresh left the account %v", acc["status"])
	}
}
