package meta_test

import (
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
)

func parse(t *testing.T, raw string) *meta.Payload {
	t.Helper()
	p, err := meta.ParseWebhook([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A messages change as Meta sends it (channels.md 1.5), with escaped
// unicode and slashes, several message types and a status.
const waMessages = `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"field":"messages","value":{
 "messaging_product":"whatsapp",
 "metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
 "contacts":[{"profile":{"name":"Ana"},"wa_id":"15551234567"},{"profile":{"name":"Bo"},"wa_id":"15557654321"}],
 "messages":[
  {"from":"15551234567","id":"wamid.IN1","timestamp":"1700000000","type":"text","text":{"body":"Ol\u00e1 \/ hi"},
   "context":{"from":"15550001111","id":"wamid.OUR_MSG"}},
  {"from":"15557654321","id":"wamid.IN2","timestamp":"1700000001","type":"image",
   "image":{"id":"1234567890","mime_type":"image\/jpeg","sha256":"q1w2e3=","caption":"my receipt"}},
  {"from":"15551234567","id":"wamid.IN3","timestamp":"1700000002","type":"interactive",
   "interactive":{"type":"list_reply","list_reply":{"id":"opt-2","title":"Tuesday","description":"afternoon"}}},
  {"from":"15551234567","id":"wamid.IN4","timestamp":"1700000003","type":"button","button":{"text":"No","payload":"No-Button-Payload"},
   "context":{"from":"15550001111","id":"wamid.TEMPLATE"}},
  {"from":"15551234567","id":"wamid.IN5","timestamp":"1700000004","type":"reaction","reaction":{"message_id":"wamid.OUR_MSG","emoji":"\ud83d\udc4d"}},
  {"from":"15551234567","id":"wamid.IN6","timestamp":"1700000005","type":"location","location":{"latitude":52.52,"longitude":13.4,"name":"Office"}},
  {"from":"15551234567","id":"wamid.IN7","timestamp":"1700000006","type":"unsupported","errors":[{"code":131051,"title":"Message type unknown","message":"Message type unknown","error_data":{"details":"not supported"}}]},
  {"from":"15551234567","id":"wamid.IN8","timestamp":"1700000007","type":"document","document":{"id":"555","mime_type":"application\/pdf","sha256":"abc","filename":"invoice.pdf"}}
 ],
 "statuses":[{"id":"wamid.OUT","recipient_id":"15551234567","status":"failed","timestamp":"1700000100",
   "errors":[{"code":131026,"title":"Message undeliverable","message":"Message undeliverable","error_data":{"details":"x"}}],
   "biz_opaque_callback_data":"msg_1"}]
}}]}]}`

func TestParseWhatsAppMessages(t *testing.T) {
	p := parse(t, waMessages)
	if p.Object != meta.ObjectWhatsApp || len(p.Events) != 9 {
		t.Fatalf("object %s, %d events", p.Object, len(p.Events))
	}
	text := p.Events[0].(*meta.WhatsAppMessage)
	if text.Channel() != "whatsapp" || text.RouteID() != "106540352242922" || text.WABAID != "102290129340398" {
		t.Fatalf("route %+v", text.WhatsAppRoute)
	}
	if text.From != "15551234567" || text.ProfileName != "Ana" || text.ID != "wamid.IN1" || text.Type != "text" ||
		text.Text != "Olá / hi" || !text.Timestamp.Equal(time.Unix(1700000000, 0)) || text.Context.ID != "wamid.OUR_MSG" {
		t.Fatalf("text message %+v", text)
	}
	img := p.Events[1].(*meta.WhatsAppMessage)
	if img.ProfileName != "Bo" || img.Media == nil || img.Media.ID != "1234567890" || img.Media.MimeType != "image/jpeg" ||
		img.Media.SHA256 != "q1w2e3=" || img.Text != "my receipt" {
		t.Fatalf("image message %+v %+v", img, img.Media)
	}
	list := p.Events[2].(*meta.WhatsAppMessage)
	if list.Text != "Tuesday" || list.ReplyID != "opt-2" || list.Media != nil {
		t.Fatalf("list reply %+v", list)
	}
	button := p.Events[3].(*meta.WhatsAppMessage)
	if button.Text != "No" || button.ReplyID != "No-Button-Payload" || button.Context.ID != "wamid.TEMPLATE" {
		t.Fatalf("button %+v", button)
	}
	reaction := p.Events[4].(*meta.WhatsAppMessage)
	if reaction.Reaction == nil || reaction.Reaction.Emoji != "👍" || reaction.Reaction.MessageID != "wamid.OUR_MSG" {
		t.Fatalf("reaction %+v", reaction)
	}
	loc := p.Events[5].(*meta.WhatsAppMessage)
	if loc.Location == nil || loc.Location.Name != "Office" || loc.Location.Latitude != 52.52 {
		t.Fatalf("location %+v", loc)
	}
	unsupported := p.Events[6].(*meta.WhatsAppMessage)
	if len(unsupported.Errors) != 1 || unsupported.Errors[0].Code != 131051 || unsupported.Errors[0].Details != "not supported" {
		t.Fatalf("unsupported %+v", unsupported)
	}
	doc := p.Events[7].(*meta.WhatsAppMessage)
	if doc.Media == nil || doc.Media.Filename != "invoice.pdf" || len(doc.Raw) == 0 {
		t.Fatalf("document %+v", doc)
	}
	st := p.Events[8].(*meta.WhatsAppStatus)
	if st.ID != "wamid.OUT" || st.Status != "failed" || st.RecipientID != "15551234567" || st.BizOpaqueCallbackData != "msg_1" ||
		len(st.Errors) != 1 || st.Errors[0].Reason() != "131026: Message undeliverable" || st.RouteID() != "106540352242922" {
		t.Fatalf("status %+v", st)
	}
}

func TestParseWhatsAppPreferencesTemplatesAccount(t *testing.T) {
	p := parse(t, `{"object":"whatsapp_business_account","entry":[{"id":"W1","changes":[
	 {"field":"user_preferences","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1555","phone_number_id":"P1"},
	  "contacts":[{"wa_id":"1555123","profile":{"name":"X"}}],
	  "user_preferences":[{"wa_id":"1555123","detail":"User requested to stop","category":"marketing_messages","value":"stop","timestamp":1700000000}]}},
	 {"field":"message_template_status_update","value":{"event":"APPROVED","message_template_id":594425479261596,
	  "message_template_name":"order_update","message_template_language":"en_US","reason":"NONE"}},
	 {"field":"phone_number_quality_update","value":{"display_phone_number":"1555","event":"FLAGGED","current_limit":"TIER_10K"}}]}]}`)
	if len(p.Events) != 3 {
		t.Fatalf("%d events", len(p.Events))
	}
	pref := p.Events[0].(*meta.WhatsAppUserPreference)
	if pref.WAID != "1555123" || pref.Value != "stop" || pref.Category != "marketing_messages" || pref.RouteID() != "P1" ||
		!pref.Timestamp.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("preference %+v", pref)
	}
	tpl := p.Events[1].(*meta.WhatsAppTemplateStatus)
	if tpl.TemplateID != "594425479261596" || tpl.Name != "order_update" || tpl.Language != "en_US" || tpl.Event != "APPROVED" || tpl.RouteID() != "W1" {
		t.Fatalf("template status %+v", tpl)
	}
	acc := p.Events[2].(*meta.WhatsAppAccountUpdate)
	if acc.Field != "phone_number_quality_update" || acc.Event != "FLAGGED" || acc.RouteID() != "W1" || len(acc.Value) == 0 {
		t.Fatalf("account update %+v", acc)
	}
}

func TestParseInstagramMessaging(t *testing.T) {
	p := parse(t, `{"object":"instagram","entry":[{"id":"17841405822304914","time":1700000000,"messaging":[
	 {"sender":{"id":"IGSID1"},"recipient":{"id":"17841405822304914"},"timestamp":1700000000123,
	  "message":{"mid":"MID1","text":"hi","attachments":[{"type":"image","payload":{"url":"https:\/\/cdn.test\/a.jpg"}},{"type":"audio","payload":{"url":"https:\/\/cdn.test\/b.mp4"}}],
	  "reply_to":{"mid":"MID0"}}},
	 {"sender":{"id":"17841405822304914"},"recipient":{"id":"IGSID1"},"timestamp":1700000001000,"message":{"mid":"MID2","text":"from the app","is_echo":true}},
	 {"sender":{"id":"IGSID1"},"recipient":{"id":"17841405822304914"},"timestamp":1700000002000,"message":{"mid":"MID1","is_deleted":true}},
	 {"sender":{"id":"IGSID1"},"recipient":{"id":"17841405822304914"},"timestamp":1700000003000,"read":{"mid":"MID2"}},
	 {"sender":{"id":"IGSID1"},"recipient":{"id":"17841405822304914"},"timestamp":1700000004000,"reaction":{"mid":"MID2","action":"react","reaction":"love","emoji":"\u2764"}},
	 {"sender":{"id":"IGSID1"},"recipient":{"id":"17841405822304914"},"timestamp":1700000005000,"postback":{"title":"x"}}]}]}`)
	if p.Object != meta.ObjectInstagram || len(p.Events) != 6 || len(p.Ignored) != 0 {
		t.Fatalf("%d events, ignored %v", len(p.Events), p.Ignored)
	}
	if pb, ok := p.Events[5].(*meta.InstagramPostback); !ok || pb.Title != "x" || pb.SenderID != "IGSID1" {
		t.Fatalf("postback %#v", p.Events[5])
	}
	dm := p.Events[0].(*meta.InstagramMessage)
	if dm.Channel() != "instagram" || dm.RouteID() != "17841405822304914" || dm.CustomerID() != "IGSID1" || dm.MID != "MID1" ||
		dm.Text != "hi" || dm.ReplyToMID != "MID0" || !dm.Timestamp.Equal(time.UnixMilli(1700000000123)) {
		t.Fatalf("dm %+v", dm)
	}
	if len(dm.Attachments) != 2 || dm.Attachments[0] != (meta.InstagramAttachment{Type: "image", URL: "https://cdn.test/a.jpg"}) || dm.Attachments[1].Type != "audio" {
		t.Fatalf("attachments %+v", dm.Attachments)
	}
	echo := p.Events[1].(*meta.InstagramMessage)
	if !echo.IsEcho || echo.CustomerID() != "IGSID1" || echo.Text != "from the app" {
		t.Fatalf("echo %+v", echo)
	}
	if del := p.Events[2].(*meta.InstagramMessage); !del.IsDeleted || del.MID != "MID1" {
		t.Fatalf("deleted %+v", del)
	}
	if read := p.Events[3].(*meta.InstagramRead); read.MID != "MID2" || read.SenderID != "IGSID1" {
		t.Fatalf("read %+v", read)
	}
	if r := p.Events[4].(*meta.InstagramReaction); r.Emoji != "❤" || r.Action != "react" || r.MID != "MID2" {
		t.Fatalf("reaction %+v", r)
	}
}

func TestParseInstagramComments(t *testing.T) {
	p := parse(t, `{"object":"instagram","entry":[{"id":"17841405822304914","time":1700000000,"changes":[
	 {"field":"comments","value":{"id":"17865799348089039","text":"price?","parent_id":"17800000000000000",
	  "from":{"id":"IGSID2","username":"ana"},"media":{"id":"17999","media_product_type":"FEED","ad_id":"2385","ad_title":"Sale"}}},
	 {"field":"live_comments","value":{"id":"17865799348089040","text":"hello live","from":{"id":"IGSID3","username":"bo"},
	  "media":{"id":"18000","media_product_type":"LIVE"}}},
	 {"field":"messages","value":{"sender":{"id":"IGSID4"},"recipient":{"id":"17841405822304914"},"timestamp":"1700000000","message":{"mid":"MID9","text":"test"}}},
	 {"field":"mentions","value":{"media_id":"1"}},
	 {"field":"comments","value":{"id":"17865799348089041","text":"on air","from":{"id":"IGSID5","username":"cy"},
	  "media":{"id":"18001","media_product_type":"LIVE"}}}]}]}`)
	if len(p.Events) != 4 || len(p.Ignored) != 1 {
		t.Fatalf("%d events, ignored %v", len(p.Events), p.Ignored)
	}
	c := p.Events[0].(*meta.InstagramComment)
	if c.Field != "comments" || c.ID != "17865799348089039" || c.Text != "price?" || c.ParentID != "17800000000000000" ||
		c.FromID != "IGSID2" || c.FromUsername != "ana" || c.MediaID != "17999" || c.MediaProductType != "FEED" ||
		c.AdID != "2385" || c.AdTitle != "Sale" || c.RouteID() != "17841405822304914" || !c.Time.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("comment %+v", c)
	}
	if live := p.Events[1].(*meta.InstagramComment); live.Field != "live_comments" || live.FromID != "IGSID3" || live.MediaID != "18000" {
		t.Fatalf("live comment %+v", live)
	}
	// A comment on live media is a live comment whichever field carries it
	// (https://developers.facebook.com/docs/instagram-platform/webhooks/examples:
	// media.media_product_type).
	if live := p.Events[3].(*meta.InstagramComment); live.Field != "live_comments" || live.MediaID != "18001" {
		t.Fatalf("comment on live media %+v", live)
	}
	if dm := p.Events[2].(*meta.InstagramMessage); dm.MID != "MID9" || dm.SenderID != "IGSID4" || !dm.Timestamp.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("changes-form dm %+v", dm)
	}
}

func TestParseWebhookBadInput(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{"entry":[]}`, `not json`, `{"object":"instagram","entry":[{"id":"1","messaging":"x"}]}`} {
		if _, err := meta.ParseWebhook([]byte(raw)); err == nil {
			t.Errorf("%q parsed", raw)
		} else if raw != `{"object":"instagram","entry":[{"id":"1","messaging":"x"}]}` && !errors.Is(err, meta.ErrNotJSON) {
			t.Errorf("%q: %v is not ErrNotJSON", raw, err)
		}
	}
	p := parse(t, `{"object":"page","entry":[{"id":"1"}]}`)
	if len(p.Events) != 0 || len(p.Ignored) != 1 {
		t.Fatalf("another object: %+v", p)
	}
}
