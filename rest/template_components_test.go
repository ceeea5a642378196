package rest_test

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// metaTemplate is a template as GET /{waba_id}/message_templates lists it.
func metaTemplate(name, category, format, components string) map[string]any {
	t := metatest.Template(name, "en_US", "APPROVED", category, "")
	var cs []any
	if err := json.Unmarshal([]byte(components), &cs); err != nil {
		panic(err)
	}
	t["components"], t["parameter_format"] = cs, format
	return t
}

// A synced template keeps every component; a send's header, body and
// button parameters are checked against them before Meta is called, and
// reach Meta as its documented components array.
func TestTemplateComponentsSend(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.SetTemplates(hookWABA,
		// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/coupon-code-templates
		metaTemplate("coupon_code_fall2023_25off", "MARKETING", "POSITIONAL", `[{"type":"HEADER","format":"TEXT","text":"Our Fall Sale is on!"},
			{"type":"BODY","text":"Shop now through November and use code {{1}} to get {{2}} off of all merchandise!"},
			{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Unsubscribe"},{"type":"COPY_CODE","example":"250FF"}]}]`),
		// https://developers.facebook.com/documentation/business-messaging/whatsapp/templates/utility-templates/location-templates/
		metaTemplate("order_delivery_update", "UTILITY", "NAMED", `[{"type":"HEADER","format":"LOCATION"},
			{"type":"BODY","text":"Good news {{customer_name}}! Your order #{{order_number}} is on its way to the location above."},
			{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Stop Delivery Updates"}]}]`),
		// https://developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates/copy-code-button-authentication-templates
		metaTemplate("verification_code", "AUTHENTICATION", "POSITIONAL", `[{"type":"BODY","text":"*{{1}}* is your verification code."},
			{"type":"BUTTONS","buttons":[{"type":"URL","text":"Copy code","url":"https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}"}]}]`),
		// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components
		metaTemplate("order_shipped", "UTILITY", "POSITIONAL", `[{"type":"HEADER","format":"IMAGE"},
			{"type":"BODY","text":"Hi {{1}}, your order {{2}} shipped."},
			{"type":"BUTTONS","buttons":[{"type":"URL","text":"Track","url":"https://www.luckyshrub.com/track?order={{1}}"},
			 {"type":"PHONE_NUMBER","text":"Call","phone_number":"15550051310"}]}]`))
	if err := h.Resolver.MetaHooks.SyncTemplates(t.Context(), "ws_main", "wa_main"); err != nil {
		t.Fatal(err)
	}
	listed := h.Want(h.Do("GET", "/v1/whatsapp/templates", "live_all", nil), 200, "")
	var named map[string]any
	for _, it := range listed.Items() {
		if it.(map[string]any)["name"] == "order_delivery_update" {
			named = it.(map[string]any)
		}
	}
	if named == nil || named["parameter_format"] != "NAMED" || lookup(named, "components.0.format") != "LOCATION" ||
		named["body"] != "Good news {{customer_name}}! Your order #{{order_number}} is on its way to the location above." {
		t.Fatalf("listed %v", named)
	}
	sends := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	}
	send := func(template map[string]any) map[string]any {
		t.Helper()
		template["language"] = "en_US"
		return map[string]any{"channel": "whatsapp", "to": "+15551234567", "whatsapp_account_id": "wa_main", "template": template}
	}
	ok := []struct {
		template map[string]any
		want     string // Meta's template object
		text     string
	}{
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"25OFF", "25%"},
			"buttons": []any{map[string]any{"index": 1, "coupon_code": "25OFF"}, map[string]any{"index": 0, "payload": "UNSUB"}}},
			`{"name":"coupon_code_fall2023_25off","language":{"code":"en_US"},"components":[
			{"type":"body","parameters":[{"type":"text","text":"25OFF"},{"type":"text","text":"25%"}]},
			{"type":"button","sub_type":"quick_reply","index":"0","parameters":[{"type":"payload","payload":"UNSUB"}]},
			{"type":"button","sub_type":"copy_code","index":"1","parameters":[{"type":"coupon_code","coupon_code":"25OFF"}]}]}`,
			"Shop now through November and use code 25OFF to get 25% off of all merchandise!"},
		{map[string]any{"name": "order_delivery_update", "named_parameters": map[string]any{"customer_name": "Mark", "order_number": "566701"},
			"header": map[string]any{"location": map[string]any{"latitude": 37.44216251868683, "longitude": -122.16153582049394,
				"name": "Philz Coffee", "address": "101 Forest Ave, Palo Alto, CA 94301"}}},
			`{"name":"order_delivery_update","language":{"code":"en_US"},"components":[
			{"type":"header","parameters":[{"type":"location","location":{"latitude":"37.44216251868683","longitude":"-122.16153582049394",
			 "name":"Philz Coffee","address":"101 Forest Ave, Palo Alto, CA 94301"}}]},
			{"type":"body","parameters":[{"type":"text","parameter_name":"customer_name","text":"Mark"},
			 {"type":"text","parameter_name":"order_number","text":"566701"}]}]}`,
			"Good news Mark! Your order #566701 is on its way to the location above."},
		{map[string]any{"name": "verification_code", "code": "J$FpnYnP"},
			`{"name":"verification_code","language":{"code":"en_US"},"components":[
			{"type":"body","parameters":[{"type":"text","text":"J$FpnYnP"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"J$FpnYnP"}]}]}`,
			"*J$FpnYnP* is your verification code."},
		{map[string]any{"name": "order_shipped", "parameters": []any{"Ana", "A-1"},
			"header":  map[string]any{"image": map[string]any{"link": "https://cdn.example.com/box.jpg"}},
			"buttons": []any{map[string]any{"index": 0, "url_suffix": "A-1"}}},
			`{"name":"order_shipped","language":{"code":"en_US"},"components":[
			{"type":"header","parameters":[{"type":"image","image":{"link":"https://cdn.example.com/box.jpg"}}]},
			{"type":"body","parameters":[{"type":"text","text":"Ana"},{"type":"text","text":"A-1"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"A-1"}]}]}`,
			"Hi Ana, your order A-1 shipped."},
	}
	for _, c := range ok {
		name := c.template["name"]
		msg := h.Want(sendMsg(h.API, "live_all", send(c.template)), 201, "").Data()
		reqs := sends()
		var want any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if got := reqs[len(reqs)-1].JSON()["template"]; !reflect.DeepEqual(got, want) {
			b, _ := json.Marshal(got)
			t.Errorf("%s: Meta got\n%s\nwant\n%s", name, b, c.want)
		}
		if msg["type"] != "template" || msg["text"] != c.text {
			t.Errorf("%s: stored %v %q, want text %q", name, msg["type"], msg["text"], c.text)
		}
	}

	before := len(sends())
	refused := []struct {
		template    map[string]any
		code, field string
	}{
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"a", "b"}}, "template_parameters_invalid", "template.buttons[1].coupon_code"},
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"a", "b"},
			"buttons": []any{map[string]any{"index": 1, "coupon_code": strings.Repeat("C", 16)}}}, "limit_exceeded", "template.buttons[1].coupon_code"},
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"a", "b"},
			"buttons": []any{map[string]any{"index": 0, "url_suffix": "x"}, map[string]any{"index": 1, "coupon_code": "C"}}}, "template_parameters_invalid", "template.buttons[0].url_suffix"},
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"a", "b"},
			"buttons": []any{map[string]any{"index": 2, "payload": "x"}}}, "template_parameters_invalid", "template.buttons[0].index"},
		{map[string]any{"name": "coupon_code_fall2023_25off", "parameters": []any{"a", "b"}, "header": map[string]any{"text": "x"},
			"buttons": []any{map[string]any{"index": 1, "coupon_code": "C"}}}, "template_parameters_invalid", "template.header.text"},
		{map[string]any{"name": "order_delivery_update", "named_parameters": map[string]any{"customer_name": "M", "order_number": "1"}},
			"template_parameters_invalid", "template.header.location"},
		{map[string]any{"name": "order_delivery_update", "named_parameters": map[string]any{"customer_name": "M", "order_number": "1"},
			"header": map[string]any{"image": map[string]any{"link": "https://x.test/a.jpg"}}}, "template_parameters_invalid", "template.header.image"},
		{map[string]any{"name": "order_delivery_update", "parameters": []any{"M", "1"}}, "template_parameters_invalid", "template.parameters"},
		{map[string]any{"name": "order_delivery_update", "named_parameters": map[string]any{"customer_name": "M"}}, "template_parameters_invalid", "template.named_parameters.order_number"},
		{map[string]any{"name": "order_delivery_update", "named_parameters": map[string]any{"customer_name": "M", "order_number": "1", "extra": "x"}},
			"template_parameters_invalid", "template.named_parameters.extra"},
		{map[string]any{"name": "verification_code"}, "template_parameters_invalid", "template.code"},
		{map[string]any{"name": "verification_code", "code": strings.Repeat("9", 16)}, "limit_exceeded", "template.code"},
		{map[string]any{"name": "order_shipped", "parameters": []any{"a", "b"}, "code": "1"}, "template_parameters_invalid", "template.code"},
		{map[string]any{"name": "order_shipped", "parameters": []any{"a", "b"}, "header": map[string]any{"image": map[string]any{"link": "https://x.test/a.jpg"}}},
			"template_parameters_invalid", "template.buttons[0].url_suffix"},
		{map[string]any{"name": "order_shipped", "parameters": []any{"a", "b"}, "header": map[string]any{"image": map[string]any{"link": "https://x.test/a.jpg"}},
			"buttons": []any{map[string]any{"index": 0, "url_suffix": "A"}, map[string]any{"index": 1, "payload": "P"}}}, "template_parameters_invalid", "template.buttons[1].payload"},
	}
	for _, c := range refused {
		resp := h.Want(sendMsg(h.API, "live_all", send(c.template)), 422, c.code)
		if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, c.field+":") {
			t.Errorf("%s: message %q does not name the field", c.field, msg)
		}
	}
	// A header file of another kind than the header's is refused too.
	file := h.Want(upload(t, h.API, "live_all", "notes.txt", "text/plain", []byte("not an image")), 201, "").Data()
	resp := h.Want(sendMsg(h.API, "live_all", send(map[string]any{"name": "order_shipped", "parameters": []any{"a", "b"},
		"header":  map[string]any{"image": map[string]any{"file_id": file["id"]}},
		"buttons": []any{map[string]any{"index": 0, "url_suffix": "A"}}})), 422, "limit_exceeded")
	if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, "template.header.image:") {
		t.Errorf("header file: %q", msg)
	}
	// The body-only path keeps its answer: a wrong count is invalid_request.
	h.Want(sendMsg(h.API, "live_all", send(map[string]any{"name": "order_shipped", "parameters": []any{"a"}})), 400, "invalid_request")
	if n := len(sends()); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
}

// Media WhatsApp does not take for the kind it would go as is refused
// before Meta is called, naming the attachment.
func TestWhatsAppMediaLimits(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.deliver(waChange("messages", waValue("messages", waMessage("wamid.IN", resttest.Epoch.Unix()-60, "text", map[string]any{"body": "hi"}))))
	conv := h.messageOf("wamid.IN")["conversation_id"]
	before := len(h.graph.Requests(nil))
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 64)...)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 5<<20)...)
	for _, c := range []struct {
		name, ctype string
		content     []byte
	}{{"voice.wav", "audio/wav", wav}, {"big.png", "image/png", png}} {
		resp := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "attachments": []any{map[string]any{
			"filename": c.name, "content_type": c.ctype, "content_base64": base64.StdEncoding.EncodeToString(c.content)}}}), 422, "limit_exceeded")
		if msg := lookup(resp.Body, "error.message").(string); !strings.HasPrefix(msg, "attachments[0]:") {
			t.Errorf("%s: %q does not name the attachment", c.name, msg)
		}
	}
	if n := len(h.graph.Requests(nil)); n != before {
		t.Fatalf("refused sends reached Meta: %d calls", n-before)
	}
}
