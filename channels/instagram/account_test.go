package instagram_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// The account calls against the stand-in answering as Meta documents
// (metatest/instagram.go lists the pages): whose account a token opens on
// each login, the subscription, the refresh, the live media list, and
// appsecret_proof on every one of them when the app requires it.
func TestAccountCalls(t *testing.T) {
	ctx := context.Background()
	g := metatest.New(t)
	a := instagram.New(g.Config(2 * time.Second))
	g.AddInstagramAccount(metatest.InstagramAccount{IGUserID: igUserID, Username: "acme", Token: igToken, PageID: pageID, PageToken: fbToken})
	ig := &channels.Credentials{Login: "instagram", IGUserID: igUserID, AccessToken: igToken}
	fb := &channels.Credentials{Login: "facebook", PageID: pageID, AccessToken: fbToken}

	if id, err := a.Identify(ctx, ig); err != nil || id.IGUserID != igUserID || id.Username != "acme" {
		t.Fatalf("identify (instagram login): %+v %v", id, err)
	}
	if id, err := a.Identify(ctx, fb); err != nil || id.IGUserID != igUserID {
		t.Fatalf("identify (facebook login): %+v %v", id, err)
	}
	if _, err := a.Identify(ctx, &channels.Credentials{Login: "instagram", IGUserID: igUserID, AccessToken: "wrong"}); !instagram.AuthFailed(err) {
		t.Fatalf("a wrong token: %v", err)
	}
	if err := a.Subscribe(ctx, ig); err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(ctx, fb); err != nil {
		t.Fatal(err)
	}
	g.Fail("/subscribed_apps", 400, 100, 0, "(#100) Invalid parameter")
	if err := a.Subscribe(ctx, ig); err == nil || instagram.Describe(err) != "100: Invalid parameter" {
		t.Fatalf("a refused subscription: %v", err)
	}
	tok, err := a.RefreshToken(ctx, ig)
	if err != nil || tok.AccessToken == igToken || tok.ExpiresIn != 60*24*time.Hour {
		t.Fatalf("refresh: %+v %v", tok, err)
	}
	ig.AccessToken = tok.AccessToken
	g.SetLive(igUserID, "17800000000000001")
	if live, err := a.Broadcasting(ctx, ig, "17800000000000001"); err != nil || !live {
		t.Fatalf("broadcasting: %v %v", live, err)
	}
	g.SetLive(igUserID)
	if live, err := a.Broadcasting(ctx, ig, "17800000000000001"); err != nil || live {
		t.Fatalf("after the broadcast: %v %v", live, err)
	}
}

func TestAppSecretProofOnEveryCall(t *testing.T) {
	ctx := context.Background()
	g := metatest.New(t)
	a := instagram.New(g.Config(2 * time.Second))
	g.AddInstagramAccount(metatest.InstagramAccount{IGUserID: igUserID, Token: igToken, AppSecret: "s3cret"})
	c := &channels.Credentials{Login: "instagram", IGUserID: igUserID, AccessToken: igToken}
	if _, err := a.Identify(ctx, c); err == nil {
		t.Fatal("a call without appsecret_proof was taken")
	}
	c.AppSecret = "s3cret"
	if _, err := a.Identify(ctx, c); err != nil {
		t.Fatal(err)
	}
	text := "hi"
	if _, err := a.Send(ctx, &channels.Message{ID: "msg_1", Livemode: true, Channel: "instagram", To: customer, Text: &text,
		Account: channels.Account{ID: "ig_main", Provider: c}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RefreshToken(ctx, c); err != nil {
		t.Fatal(err)
	}
	// HMAC-SHA256 of "IGQV-token" keyed with "s3cret", in hex.
	if got := meta.AppSecretProof("s3cret", igToken); got != "f82a4395b6596264efed5ac09907377d1fa71fed4e3b76b2076a6dedbd7f4519" {
		t.Fatalf("proof %q", got)
	}
	for _, r := range g.Requests(nil) {
		if r.Status == 200 && r.Query.Get("appsecret_proof") == "" {
			t.Errorf("%s %s went without appsecret_proof", r.Method, r.Path)
		}
	}
}

// AuthFailed is the refusal's NeedsReauth: Meta's code 190, or an HTTP 401
// without an envelope; any other failure leaves the token be.
func TestAuthFailed(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&meta.Error{HTTPStatus: 400, Code: 190, Message: "Invalid OAuth access token"}, true},
		{&meta.Error{HTTPStatus: 401, Message: "Unauthorized"}, true},
		{&meta.Error{HTTPStatus: 401, Code: 100, Message: "Invalid parameter"}, false},
		{&meta.Error{HTTPStatus: 500, Message: "Internal"}, false},
		{&meta.Error{Timeout: true, Message: "timeout"}, false},
	} {
		if got := instagram.AuthFailed(c.err); got != c.want {
			t.Errorf("AuthFailed(%v) = %v", c.err, got)
		}
	}
}
