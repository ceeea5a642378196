package instagram_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

const (
	igUserID = "17841405822304914"
	pageID   = "104000000000001"
	igToken  = "IGQV-token"
	fbToken  = "EAAB-page-token"
	customer = "IGSID-42"
)

func igLogin() channels.Account {
	return channels.Account{ID: "ig_main", Channel: "instagram", Address: "acme",
		Provider: &channels.Credentials{Login: "instagram", IGUserID: igUserID, AccessToken: igToken}}
}

func fbLogin() channels.Account {
	return channels.Account{ID: "ig_page", Channel: "instagram", Address: "acme_fb",
		Provider: &channels.Credentials{Login: "facebook", IGUserID: igUserID, PageID: pageID, AccessToken: fbToken}}
}

func setup(t *testing.T) (*metatest.Server, *instagram.Adapter) {
	g := metatest.New(t)
	return g, instagram.New(g.Config(2 * time.Second))
}

func str(s string) *string { return &s }

func TestDMTextAndAttachmentsInstagramLogin(t *testing.T) {
	g, a := setup(t)
	files := []channels.File{
		{ID: "file_1", Filename: "a.png", ContentType: "image/png", Size: 10, URL: "https://api.test/v1/files/file_1/content?sig=1"},
		{ID: "file_2", Filename: "b.mp4", ContentType: "video/mp4", Size: 10, URL: "https://api.test/v1/files/file_2/content?sig=2"},
	}
	r, err := a.Send(context.Background(), &channels.Message{Account: igLogin(), To: customer, Text: str("Here you go"), Attachments: files})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want text and one per attachment", len(reqs))
	}
	for _, req := range reqs {
		if req.Host != metatest.HostInstagram || req.Path != "/v24.0/"+igUserID+"/messages" || req.Bearer() != igToken {
			t.Fatalf("request %s %s bearer %q", req.Host, req.Path, req.Bearer())
		}
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"recipient":{"id":"IGSID-42"},"message":{"text":"Here you go"}}`)
	metatest.SameJSON(t, reqs[1].JSON(), `{"recipient":{"id":"IGSID-42"},"message":{"attachment":{"type":"image","payload":{"url":"https://api.test/v1/files/file_1/content?sig=1"}}}}`)
	metatest.SameJSON(t, reqs[2].JSON(), `{"recipient":{"id":"IGSID-42"},"message":{"attachment":{"type":"video","payload":{"url":"https://api.test/v1/files/file_2/content?sig=2"}}}}`)
	var want []string
	for _, req := range reqs {
		want = append(want, req.AnswerJSON()["message_id"].(string))
	}
	if !reflect.DeepEqual(r.ProviderIDs, want) || r.Failed != nil {
		t.Fatalf("receipt %+v, want %v", r, want)
	}
}

func TestDMFacebookLoginGoesToPage(t *testing.T) {
	g, a := setup(t)
	if _, err := a.Send(context.Background(), &channels.Message{Account: fbLogin(), To: customer, Text: str("hi")}); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 1 || reqs[0].Host != metatest.HostMeta || reqs[0].Path != "/v24.0/"+pageID+"/messages" || reqs[0].Bearer() != fbToken {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestCommentReplies(t *testing.T) {
	for _, acc := range []channels.Account{igLogin(), fbLogin()} {
		g, a := setup(t)
		host, token := metatest.HostInstagram, igToken
		if acc.Provider.Login == "facebook" {
			host, token = metatest.HostMeta, fbToken
		}
		r, err := a.Send(context.Background(), &channels.Message{Account: acc, To: customer, Text: str("Thanks!"), ReplyAs: "comment", CommentID: "17865799348089039"})
		if err != nil {
			t.Fatal(err)
		}
		// No reply_as on a comment is the public reply too.
		if _, err := a.Send(context.Background(), &channels.Message{Account: acc, To: customer, Text: str("Again"), CommentID: "17865799348089039"}); err != nil {
			t.Fatal(err)
		}
		dm, err := a.Send(context.Background(), &channels.Message{Account: acc, To: customer, Text: str("Sent you the price"), ReplyAs: "dm", CommentID: "17865799348089039"})
		if err != nil {
			t.Fatal(err)
		}
		reqs := g.Requests(nil)
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		for _, req := range reqs {
			if req.Host != host || req.Bearer() != token {
				t.Fatalf("%s: request on %s with %q", acc.Provider.Login, req.Host, req.Bearer())
			}
		}
		if reqs[0].Path != "/v24.0/17865799348089039/replies" || r.ProviderIDs[0] != reqs[0].AnswerJSON()["id"] {
			t.Fatalf("public reply %s, receipt %+v", reqs[0].Path, r)
		}
		metatest.SameJSON(t, reqs[0].JSON(), `{"message":"Thanks!"}`)
		node := igUserID
		if acc.Provider.Login == "facebook" {
			node = pageID
		}
		if reqs[2].Path != "/v24.0/"+node+"/messages" || dm.ProviderIDs[0] != reqs[2].AnswerJSON()["message_id"] {
			t.Fatalf("private reply %s, receipt %+v", reqs[2].Path, dm)
		}
		metatest.SameJSON(t, reqs[2].JSON(), `{"recipient":{"comment_id":"17865799348089039"},"message":{"text":"Sent you the price"}}`)
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		code, subcode int
		want          apierr.Code
	}{
		{10, 2018278, apierr.WindowClosed},
		{551, 0, apierr.RecipientUnreachable},
		{190, 0, apierr.ChannelUnavailable},
		{4, 0, apierr.ChannelRateLimited},
	}
	for _, c := range cases {
		g, a := setup(t)
		g.Fail("/messages", 400, c.code, c.subcode, "")
		_, err := a.Send(context.Background(), &channels.Message{Account: igLogin(), To: customer, Text: str("x")})
		if r := channels.AsRefusal(err); r.Code != c.want || r.NeedsReauth != (c.code == 190) {
			t.Fatalf("%d/%d: %+v", c.code, c.subcode, r)
		}
	}
}

func TestPartialFailureKeepsSentParts(t *testing.T) {
	g, a := setup(t)
	g.Queue(metatest.Script{PathSuffix: "/messages", Match: func(r metatest.Request) bool {
		m, _ := r.JSON()["message"].(map[string]any)
		return m["attachment"] != nil
	}, Status: 400, Body: metatest.ErrorBody(100, 2018047, "(#100) Upload attachment failure.")})
	files := []channels.File{{Filename: "a.png", ContentType: "image/png", Size: 1, URL: "https://api.test/f"}}
	r, err := a.Send(context.Background(), &channels.Message{Account: igLogin(), To: customer, Text: str("x"), Attachments: files})
	if err != nil || len(r.ProviderIDs) != 1 || r.Failed == nil || r.Failed.Reason != "100/2018047: Upload attachment failure." {
		t.Fatalf("receipt %+v, %v", r, err)
	}
}

func TestChecksBeforeCalling(t *testing.T) {
	g, a := setup(t)
	pdf := []channels.File{{Filename: "a.pdf", ContentType: "application/pdf", Size: 1, URL: "https://api.test/f"}}
	img := []channels.File{{Filename: "a.png", ContentType: "image/png", Size: 9 << 20, URL: "https://api.test/f"}}
	noLogin := igLogin()
	noLogin.Provider = &channels.Credentials{Login: "facebook", AccessToken: "t"}
	cases := map[string]struct {
		m    *channels.Message
		want apierr.Code
	}{
		"pdf":                {&channels.Message{Account: igLogin(), To: customer, Attachments: pdf}, apierr.UnsupportedAttachment},
		"image too big":      {&channels.Message{Account: igLogin(), To: customer, Attachments: img}, apierr.AttachmentsTooLarge},
		"no credentials":     {&channels.Message{Account: channels.Account{ID: "ig_x"}, To: customer, Text: str("x")}, apierr.ChannelUnavailable},
		"facebook, no page":  {&channels.Message{Account: noLogin, To: customer, Text: str("x")}, apierr.ChannelUnavailable},
		"no recipient":       {&channels.Message{Account: igLogin(), Text: str("x")}, apierr.NoRecipient},
		"empty":              {&channels.Message{Account: igLogin(), To: customer}, apierr.TextRequired},
		"comment attachment": {&channels.Message{Account: igLogin(), To: customer, Text: str("x"), CommentID: "c", Attachments: pdf}, apierr.UnsupportedAttachment},
		"private attachment": {&channels.Message{Account: igLogin(), To: customer, Text: str("x"), ReplyAs: "dm", CommentID: "c", Attachments: pdf}, apierr.UnsupportedAttachment},
		"reply_as alone":     {&channels.Message{Account: igLogin(), To: customer, Text: str("x"), ReplyAs: "comment"}, apierr.InvalidRequest},
	}
	for name, c := range cases {
		_, err := a.Send(context.Background(), c.m)
		if got := channels.AsRefusal(err); got.Code != c.want {
			t.Errorf("%s: %+v", name, got)
		}
	}
	if n := len(g.Requests(nil)); n != 0 {
		t.Fatalf("%d provider calls for refused sends", n)
	}
}

// A person's reply outside the 24-hour window carries the HUMAN_AGENT tag
// whatever it is made of: a generic template as well as text. The body is
// the generic template of
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/generic-template
// with the tag of
// https://developers.facebook.com/docs/messenger-platform/send-messages/message-tags.
func TestHumanAgentTagOnGenericTemplate(t *testing.T) {
	g, a := setup(t)
	m := &channels.Message{ID: "msg_1", Account: igLogin(), To: customer, Tag: "HUMAN_AGENT", Rich: channels.Rich{
		Interactive: &channels.Interactive{Type: "generic", Elements: []channels.Element{{Title: "Boots"}}}}}
	if _, err := a.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"recipient":{"id":"IGSID-42"},"messaging_type":"MESSAGE_TAG","tag":"HUMAN_AGENT",
		"message":{"attachment":{"type":"template","payload":{"template_type":"generic","elements":[{"title":"Boots"}]}}}}`)
}
