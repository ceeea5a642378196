package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest"
)

// An account connected through a Meta app of its own (an Instagram Login
// app has its own secret): its webhooks verify with that secret, beside
// the global one, and every call it makes carries appsecret_proof (the
// stand-in refuses calls without it, as an app that requires it does).
// https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads
// https://developers.facebook.com/docs/graph-api/securing-requests#appsecret_proof
func TestInstagramAccountAppSecret(t *testing.T) {
	t.Parallel()
	const ownSecret = "instagram-login-app-secret"
	h := newIGAPI(t)
	g := h.graph
	g.AddInstagramAccount(metatest.InstagramAccount{IGUserID: igUser, Username: "acme", Token: igToken, AppSecret: ownSecret})
	// Connecting without the secret: Meta refuses the call without proof.
	connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {igUserId: "`+igUser+`", accessToken: "`+igToken+`"}) { accountId } }`, "invalid_request")
	got := connection(t, h.API, `mutation { connectChannelAccount(accountId: "ig_main", input: {igUserId: "`+igUser+`", accessToken: "`+igToken+`", appSecret: "`+ownSecret+`"}) `+igConnectionFields+` }`, "")
	if got["appSecretSet"] != true {
		t.Fatalf("connected: %v", got)
	}
	if sub := igAccount(t, h.API)["subscription"].(map[string]any); sub["status"] != "ok" {
		t.Fatalf("subscription %v", sub)
	}

	dm := igDM(igUser, igCustomer, igUser, "mid.own-1", h.Clock.Now(), map[string]any{"text": "signed by the account's app"})
	if status := h.post(dm, meta.SignatureValue("some-other-secret", mustJSON(t, dm))); status != http.StatusUnauthorized {
		t.Fatalf("a wrong signature answered %d", status)
	}
	if status := h.post(dm, meta.SignatureValue(ownSecret, mustJSON(t, dm))); status != http.StatusOK {
		t.Fatalf("the account's own signature answered %d", status)
	}
	if err := h.process(); err != nil {
		t.Fatal(err)
	}
	conv := h.one("message.received", "signed by the account's app")["conversation_id"]
	// The global secret still verifies (another app's accounts).
	if status := h.post(igDM(igUser, igCustomer, igUser, "mid.own-2", h.Clock.Now(), map[string]any{"text": "global"})); status != http.StatusOK {
		t.Fatalf("the global signature answered %d", status)
	}

	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "proved"}), 201, "")
	sends := g.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if len(sends) != 1 || sends[0].Query.Get("appsecret_proof") != meta.AppSecretProof(ownSecret, igToken) {
		t.Fatalf("send %+v", sends)
	}

	// Without a global secret, the account's still verifies its own hooks.
	h.Server.Meta = rest.MetaHooks{VerifyToken: "verify"}
	dm3 := igDM(igUser, igCustomer, igUser, "mid.own-3", h.Clock.Now(), map[string]any{"text": "no global secret"})
	if status := h.post(dm3, meta.SignatureValue(ownSecret, mustJSON(t, dm3))); status != http.StatusOK {
		t.Fatalf("without a global secret the account's signature answered %d", status)
	}
	other := igDM("17841499999999999", igCustomer, "17841499999999999", "mid.own-4", h.Clock.Now(), map[string]any{"text": "x"})
	if status := h.post(other, meta.SignatureValue(ownSecret, mustJSON(t, other))); status != http.StatusServiceUnavailable {
		t.Fatalf("a hook of no account with a secret, no global secret: %d", status)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
