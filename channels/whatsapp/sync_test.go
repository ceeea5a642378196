package whatsapp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

func TestSyncTemplatesFollowsPaging(t *testing.T) {
	g, a := setup(t)
	g.SetTemplates(waba,
		metatest.Template("order_update", "en_US", "APPROVED", "UTILITY", "Order {{1}} shipped"),
		metatest.Template("alert", "en_US", "APPROVED", "UTILITY", "Alert {{1}} raised"),
		metatest.Template("promo", "es_ES", "REJECTED", "MARKETING", "Oferta {{1}}"),
		metatest.Template("welcome", "de_DE", "PAUSED", "MARKETING", "Hallo"),
		metatest.Template("otp", "en_US", "APPROVED", "AUTHENTICATION", "Code {{1}}"))
	g.SetOnboarding(waba, "ELIGIBLE")
	acc := account()
	s, err := a.SyncTemplates(context.Background(), acc.Provider)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Templates) != 5 || s.MarketingMessages != "ELIGIBLE" {
		t.Fatalf("sync %+v", s)
	}
	promo := s.Templates[2]
	if promo.Name != "promo" || promo.Language != "es_ES" || promo.Status != "REJECTED" || promo.Category != "MARKETING" ||
		promo.Body != "Oferta {{1}}" || promo.ID == "" || len(promo.Components) == 0 {
		t.Fatalf("template %+v", promo)
	}
	lists := g.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+waba+"/message_templates" })
	if len(lists) != 3 {
		t.Fatalf("%d list requests, want 3 pages", len(lists))
	}
	for i, r := range lists {
		if r.Method != "GET" || r.Bearer() != token || r.Query.Get("limit") != "100" {
			t.Fatalf("page %d: %s bearer %q query %v", i, r.Method, r.Bearer(), r.Query)
		}
	}
	if lists[1].Query.Get("after") != "2" || lists[2].Query.Get("after") != "4" {
		t.Fatalf("cursors %v %v", lists[1].Query, lists[2].Query)
	}
	status := g.Requests(func(r metatest.Request) bool { return r.Path == "/v24.0/"+waba })
	if len(status) != 1 || status[0].Query.Get("fields") != "marketing_messages_onboarding_status" || status[0].Bearer() != token {
		t.Fatalf("onboarding requests %+v", status)
	}
}

func TestSyncTemplatesRefusals(t *testing.T) {
	g, a := setup(t)
	g.Queue(metatest.Script{Method: "GET", PathSuffix: "/message_templates", Status: 401, Body: metatest.ErrorBody(190, 463, "Session has expired")})
	acc := account()
	_, err := a.SyncTemplates(context.Background(), acc.Provider)
	if r := channels.AsRefusal(err); !r.NeedsReauth {
		t.Fatalf("expired token: %+v", r)
	}
	// paging.next to another host is not followed with the token.
	g.Queue(metatest.Script{Method: "GET", PathSuffix: "/message_templates", Status: 200,
		Body: map[string]any{"data": []any{}, "paging": map[string]any{"next": "https://evil.test/v24.0/x?access_token=leak"}}})
	if _, err := a.SyncTemplates(context.Background(), acc.Provider); err == nil {
		t.Fatal("a paging.next on another host was followed")
	}
	if n := len(g.Requests(func(r metatest.Request) bool { return r.Query.Get("access_token") != "" })); n != 0 {
		t.Fatalf("%d requests carried a token in the query", n)
	}
	if _, err := a.SyncTemplates(context.Background(), &channels.Credentials{AccessToken: token}); channels.AsRefusal(err).Code != apierr.ChannelUnavailable {
		t.Fatalf("no WABA id: %v", err)
	}
}

func TestMarketingStatusUnknownField(t *testing.T) {
	g, a := setup(t)
	g.Queue(metatest.Script{Method: "GET", PathSuffix: "/" + waba, Status: 400,
		Body: metatest.ErrorBody(100, 0, "(#100) Tried accessing nonexisting field (marketing_messages_onboarding_status)")})
	acc := account()
	s, err := a.SyncTemplates(context.Background(), acc.Provider)
	if err != nil || s.MarketingMessages != "" || s.Templates == nil {
		t.Fatalf("sync %+v, %v", s, err)
	}
}

// A token that may list templates but not read the WABA's fields (Meta's
// permission error, code 200: developers.facebook.com/docs/graph-api/
// guides/error-handling) still syncs the templates; the marketing status
// stays unknown.
func TestMarketingStatusUnreadable(t *testing.T) {
	g, a := setup(t)
	g.SetTemplates(waba, metatest.Template("order_update", "en_US", "APPROVED", "UTILITY", "Order {{1}} shipped"))
	g.Queue(metatest.Script{Method: "GET", PathSuffix: "/" + waba, Status: 403,
		Body: metatest.ErrorBody(200, 0, "(#200) Requires business_management permission to manage the object")})
	acc := account()
	s, err := a.SyncTemplates(context.Background(), acc.Provider)
	if err != nil || s.MarketingMessages != "" || len(s.Templates) != 1 {
		t.Fatalf("sync %+v, %v", s, err)
	}
}

func TestDownloadMedia(t *testing.T) {
	g, a := setup(t)
	content := []byte("\x89PNG the picture")
	g.AddMedia("1234567890", content, "image/png", token, "")
	acc := account()
	m, err := a.DownloadMedia(context.Background(), acc.Provider, "1234567890", "")
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Content) != string(content) || m.MimeType != "image/png" || m.ID != "1234567890" {
		t.Fatalf("media %+v", m)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 2 || reqs[0].Path != "/v24.0/1234567890" || reqs[0].Query.Get("phone_number_id") != pnid ||
		reqs[1].Path != "/media-files/1234567890" || reqs[0].Bearer() != token || reqs[1].Bearer() != token {
		t.Fatalf("requests %+v", reqs)
	}
	// The webhook's digest is checked too (hex accepted as well as base64).
	sum := sha256.Sum256(content)
	if _, err := a.DownloadMedia(context.Background(), acc.Provider, "1234567890", hex.EncodeToString(sum[:])); err != nil {
		t.Fatalf("hex digest of the webhook: %v", err)
	}
	if _, err := a.DownloadMedia(context.Background(), acc.Provider, "1234567890", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="); !errors.Is(err, whatsapp.ErrDigestMismatch) {
		t.Fatalf("the webhook's digest differs: %v", err)
	}
}

func TestDownloadMediaMismatchAndToken(t *testing.T) {
	g, a := setup(t)
	g.AddMedia("42", []byte("bytes"), "audio/ogg", token, "bm90IHRoZSBkaWdlc3Qgb2YgdGhlc2UgYnl0ZXMhISE=")
	acc := account()
	if _, err := a.DownloadMedia(context.Background(), acc.Provider, "42", ""); !errors.Is(err, whatsapp.ErrDigestMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
	g.AddMedia("43", []byte("bytes"), "audio/ogg", "another-token", "")
	_, err := a.DownloadMedia(context.Background(), acc.Provider, "43", "")
	if r := channels.AsRefusal(err); !r.NeedsReauth {
		t.Fatalf("a token the provider refuses: %v", err)
	}
}

func TestSameDigest(t *testing.T) {
	sum := sha256.Sum256([]byte("x"))
	if !whatsapp.SameDigest("LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE=", sum[:]) {
		t.Fatal("the standard base64 digest of x")
	}
	if whatsapp.SameDigest("", sum[:]) || whatsapp.SameDigest("not a digest", sum[:]) {
		t.Fatal("garbage matched")
	}
}

// GET /{media_id} gives file_size as a string in Meta's schema (Retrieve
// Media URL in facebook/openapi business-messaging-api,
// https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media/)
// and as a number in some answers: either form is read, and a media over
// MaxMediaSize is not fetched.
func TestDownloadMediaFileSizeEitherForm(t *testing.T) {
	g, a := setup(t)
	for _, size := range []any{"209715200", 209715200} {
		g.Queue(metatest.Script{Method: "GET", PathSuffix: "/big", Status: 200, Body: map[string]any{
			"url": g.Graph.URL + "/media-files/big", "mime_type": "video/mp4", "sha256": "x", "file_size": size, "id": "big"}})
		_, err := a.DownloadMedia(context.Background(), account().Provider, "big", "")
		if err == nil || !strings.Contains(err.Error(), "more than") {
			t.Fatalf("file_size %#v: %v", size, err)
		}
	}
	if n := len(g.Requests(func(r metatest.Request) bool { return strings.HasPrefix(r.Path, "/media-files/") })); n != 0 {
		t.Fatalf("%d downloads of a media over the limit", n)
	}
}
