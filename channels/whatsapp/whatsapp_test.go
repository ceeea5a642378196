package whatsapp_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

const (
	pnid  = "106540352242922"
	waba  = "102290129340398"
	token = "EAAG-token"
)

func account() channels.Account {
	return channels.Account{ID: "wa_main", Channel: "whatsapp", Address: "+15550001111",
		Provider: &channels.Credentials{PhoneNumberID: pnid, WABAID: waba, AccessToken: token}}
}

func setup(t *testing.T) (*metatest.Server, *whatsapp.Adapter) {
	g := metatest.New(t)
	return g, whatsapp.New(g.Config(2 * time.Second))
}

func str(s string) *string { return &s }

func TestSendText(t *testing.T) {
	g, a := setup(t)
	r, err := a.Send(context.Background(), &channels.Message{ID: "msg_1", Channel: "whatsapp", Account: account(), To: "+1 555-123-4567", Text: str("Hi Dana")})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 1 || reqs[0].Path != "/v24.0/"+pnid+"/messages" || reqs[0].Bearer() != token || reqs[0].Host != metatest.HostMeta {
		t.Fatalf("requests %+v", reqs)
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"text","text":{"body":"Hi Dana"},"biz_opaque_callback_data":"msg_1"}`)
	wamid := reqs[0].AnswerJSON()["messages"].([]any)[0].(map[string]any)["id"]
	if !reflect.DeepEqual(r.ProviderIDs, []string{wamid.(string)}) || r.Failed != nil {
		t.Fatalf("receipt %+v, wamid %v", r, wamid)
	}
}

func TestSendTemplateAndMarketing(t *testing.T) {
	g, a := setup(t)
	tpl := &channels.Template{Name: "order_update", Language: "en_US", Category: "UTILITY", TemplateParameters: channels.TemplateParameters{Body: []channels.TemplateParam{{Text: "Ana"}, {Text: "A-1001"}}}}
	if _, err := a.Send(context.Background(), &channels.Message{ID: "msg_tpl", Account: account(), To: "15551234567", Text: str("rendered"), Template: tpl}); err != nil {
		t.Fatal(err)
	}
	promo := &channels.Template{Name: "spring_sale", Language: "es_ES", Category: "MARKETING", Marketing: true}
	r, err := a.Send(context.Background(), &channels.Message{ID: "msg_promo", Account: account(), To: "15551234567", Template: promo})
	if err != nil || len(r.ProviderIDs) != 1 {
		t.Fatal(r, err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 2 || reqs[0].Path != "/v24.0/"+pnid+"/messages" || reqs[1].Path != "/v24.0/"+pnid+"/marketing_messages" {
		t.Fatalf("paths %v %v", reqs[0].Path, reqs[1].Path)
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"template","template":{
		"name":"order_update","language":{"code":"en_US"},
		"components":[{"type":"body","parameters":[{"type":"text","text":"Ana"},{"type":"text","text":"A-1001"}]}]},
		"biz_opaque_callback_data":"msg_tpl"}`)
	// /marketing_messages takes recipient_type and biz_opaque_callback_data as
	// /messages does
	// (the Marketing Messages API body in
	// https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
	metatest.SameJSON(t, reqs[1].JSON(), `{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567",
		"type":"template","template":{"name":"spring_sale","language":{"code":"es_ES"}},"biz_opaque_callback_data":"msg_promo"}`)
}

func TestSendMediaUploadsThenSendsByID(t *testing.T) {
	g, a := setup(t)
	jpeg := []byte("\xff\xd8\xff jpeg bytes")
	files := []channels.File{
		{ID: "file_1", Filename: "receipt.jpg", ContentType: "image/jpeg", Size: len(jpeg), Content: jpeg},
		{ID: "file_2", Filename: "terms.pdf", ContentType: "application/pdf", Size: 3, Content: []byte("pdf")},
	}
	r, err := a.Send(context.Background(), &channels.Message{ID: "msg_media", Account: account(), To: "15551234567", Text: str("Your receipt"), Attachments: files})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want upload, send, upload, send", len(reqs))
	}
	up := reqs[0]
	if up.Path != "/v24.0/"+pnid+"/media" || up.Bearer() != token {
		t.Fatalf("upload %s", up.Path)
	}
	parts, err := up.Multipart()
	if err != nil {
		t.Fatal(err)
	}
	if string(parts["messaging_product"].Content) != "whatsapp" || string(parts["type"].Content) != "image/jpeg" ||
		string(parts["file"].Content) != string(jpeg) || parts["file"].Filename != "receipt.jpg" || parts["file"].ContentType != "image/jpeg" {
		t.Fatalf("upload parts %+v", parts)
	}
	mediaID := up.AnswerJSON()["id"].(string)
	metatest.SameJSON(t, reqs[1].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"image","image":{"id":"`+mediaID+`","caption":"Your receipt"},"biz_opaque_callback_data":"msg_media"}`)
	docID := reqs[2].AnswerJSON()["id"].(string)
	metatest.SameJSON(t, reqs[3].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"document","document":{"id":"`+docID+`","filename":"terms.pdf"},"biz_opaque_callback_data":"msg_media"}`)
	if len(r.ProviderIDs) != 2 {
		t.Fatalf("receipt %+v", r)
	}
}

func TestSendAudioTextGoesFirst(t *testing.T) {
	g, a := setup(t)
	files := []channels.File{{Filename: "v.ogg", ContentType: "audio/ogg", Size: 2, URL: "https://api.test/v1/files/file_9/content?sig=x"}}
	r, err := a.Send(context.Background(), &channels.Message{ID: "msg_audio", Account: account(), To: "15551234567", Text: str("listen"), Attachments: files})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 2 || len(r.ProviderIDs) != 2 {
		t.Fatalf("%d requests, receipt %+v", len(reqs), r)
	}
	metatest.SameJSON(t, reqs[0].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"text","text":{"body":"listen"},"biz_opaque_callback_data":"msg_audio"}`)
	// No bytes at hand: sent by link, no upload.
	metatest.SameJSON(t, reqs[1].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"audio","audio":{"link":"https://api.test/v1/files/file_9/content?sig=x"},"biz_opaque_callback_data":"msg_audio"}`)
}

func TestSendRefusals(t *testing.T) {
	cases := []struct {
		code, status int
		want         apierr.Code
	}{
		{131047, 400, apierr.WindowClosed},
		{132001, 400, apierr.TemplateNotApproved},
		{131050, 400, apierr.RecipientOptedOut},
		{131056, 429, apierr.ChannelRateLimited},
		{190, 401, apierr.ChannelUnavailable},
	}
	for _, c := range cases {
		g, a := setup(t)
		g.Fail("/messages", c.status, c.code, 0, "")
		r, err := a.Send(context.Background(), &channels.Message{Account: account(), To: "15551234567", Text: str("x")})
		if r != nil || err == nil {
			t.Fatalf("%d: receipt %+v err %v", c.code, r, err)
		}
		if got := channels.AsRefusal(err); got.Code != c.want || got.NeedsReauth != (c.code == 190) || got.RefreshTemplates != (c.code == 132001) {
			t.Fatalf("%d: refusal %+v", c.code, got)
		}
	}
}

func TestSendPartialFailure(t *testing.T) {
	g, a := setup(t)
	g.Queue(metatest.Script{PathSuffix: "/messages", Match: func(r metatest.Request) bool { return r.JSON()["type"] == "audio" },
		Status: 400, Body: metatest.ErrorBody(131053, 0, "(#131053) Media upload error")})
	files := []channels.File{{Filename: "v.ogg", ContentType: "audio/ogg", Size: 2, Content: []byte("ok")}}
	r, err := a.Send(context.Background(), &channels.Message{Account: account(), To: "15551234567", Text: str("listen"), Attachments: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ProviderIDs) != 1 || r.Failed == nil || r.Failed.Reason != "131053: Media upload error (stand-in details 131053)" {
		t.Fatalf("receipt %+v failed %+v", r, r.Failed)
	}
}

func TestSendChecksBeforeCalling(t *testing.T) {
	g, a := setup(t)
	big := []channels.File{{Filename: "big.jpg", ContentType: "image/jpeg", Size: 6 << 20, Content: []byte("x")}}
	cases := map[string]struct {
		m    *channels.Message
		want apierr.Code
	}{
		"no credentials": {&channels.Message{Account: channels.Account{ID: "wa_x"}, To: "1555", Text: str("x")}, apierr.ChannelUnavailable},
		"no phone":       {&channels.Message{Account: account(), To: "+", Text: str("x")}, apierr.InvalidPhone},
		"nothing":        {&channels.Message{Account: account(), To: "1555"}, apierr.TextRequired},
		"image too big":  {&channels.Message{Account: account(), To: "1555", Attachments: big}, apierr.AttachmentsTooLarge},
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

func TestKindAndDigits(t *testing.T) {
	for ct, want := range map[string]string{"image/jpeg": "image", "image/png; x=y": "image", "image/webp": "sticker", "image/gif": "document",
		"video/mp4": "video", "video/quicktime": "document", "audio/ogg; codecs=opus": "audio", "application/pdf": "document", "": "document"} {
		if got := channels.WhatsAppMediaKind(ct, 100); got != want {
			t.Errorf("Kind(%q) = %s, want %s", ct, got, want)
		}
	}
	if got := channels.WhatsAppMediaKind("image/webp", 600<<10); got != "document" {
		t.Errorf("a large webp is %s", got)
	}
	if got := channels.Digits("+49 (30) 123-45"); got != "493012345" {
		t.Errorf("Digits %s", got)
	}
}

// A customer known only by business-scoped user id is sent to with
// recipient instead of to, on /messages and /marketing_messages alike; a
// known phone goes as to
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids:
// "Use to to send to a phone number. Use recipient to send to a BSUID").
func TestSendToBusinessScopedUserID(t *testing.T) {
	g, a := setup(t)
	const bsuid = "US.13491208655302741918"
	if _, err := a.Send(context.Background(), &channels.Message{ID: "msg_u", Account: account(), To: bsuid, Text: str("Hello")}); err != nil {
		t.Fatal(err)
	}
	promo := &channels.Template{Name: "promo_template", Language: "en_US", Category: "MARKETING", Marketing: true}
	if _, err := a.Send(context.Background(), &channels.Message{ID: "msg_m", Account: account(), To: bsuid, Template: promo}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), &channels.Message{ID: "msg_p", Account: account(), To: "+15551234567", Text: str("Hi")}); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	metatest.SameJSON(t, reqs[0].JSON(), `{"messaging_product":"whatsapp","recipient":"US.13491208655302741918","type":"text",
		"text":{"body":"Hello"},"biz_opaque_callback_data":"msg_u"}`)
	metatest.SameJSON(t, reqs[1].JSON(), `{"messaging_product":"whatsapp","recipient_type":"individual","recipient":"US.13491208655302741918",
		"type":"template","template":{"name":"promo_template","language":{"code":"en_US"}},"biz_opaque_callback_data":"msg_m"}`)
	metatest.SameJSON(t, reqs[2].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"text","text":{"body":"Hi"},"biz_opaque_callback_data":"msg_p"}`)
	if c := reqs[0].AnswerJSON()["contacts"].([]any)[0].(map[string]any); c["user_id"] != bsuid || c["wa_id"] != nil {
		t.Fatalf("stand-in answer contacts %v", c)
	}
}

func TestIsUserID(t *testing.T) {
	for s, want := range map[string]bool{"US.13491208655302741918": true, "BR.1502576394655843": true,
		"US.ENT.11815799212886844830": true, "+15551234567": false, "15551234567": false, "us.123": false, "US.": false} {
		if channels.IsWhatsAppUserID(s) != want {
			t.Errorf("IsUserID(%q) = %v", s, !want)
		}
	}
}

// Subscribe posts to /{waba_id}/subscribed_apps with the number's token;
// Meta's {"success":true} is success, an error envelope or success false
// is an error
// (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/subscribed_apps/).
func TestSubscribeTheWABA(t *testing.T) {
	g, a := setup(t)
	creds := account().Provider
	if err := a.Subscribe(context.Background(), creds); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/v24.0/"+waba+"/subscribed_apps" || reqs[0].Bearer() != token {
		t.Fatalf("requests %+v", reqs)
	}
	g.Fail("/subscribed_apps", 400, 100, 0, "(#100) Invalid parameter")
	if err := a.Subscribe(context.Background(), creds); channels.AsRefusal(err).Reason != "100: Invalid parameter" {
		t.Fatalf("refused: %v", err)
	}
	g.Queue(metatest.Script{PathSuffix: "/subscribed_apps", Status: 200, Body: map[string]any{"success": false}})
	if err := a.Subscribe(context.Background(), creds); err == nil {
		t.Fatal("success false taken as success")
	}
}
