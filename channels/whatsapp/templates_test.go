package whatsapp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/msgsvc/msgsvc/channels"
)

// Templates as GET /{waba_id}/message_templates lists them, from Meta's
// template pages.
const (
	// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/coupon-code-templates
	couponComponents = `[{"type":"HEADER","format":"TEXT","text":"Our Fall Sale is on!"},
		{"type":"BODY","text":"Shop now through November and use code {{1}} to get {{2}} off of all merchandise!",
		 "example":{"body_text":[["25OFF","25%"]]}},
		{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Unsubscribe"},{"type":"COPY_CODE","example":"250FF"}]}]`
	// https://developers.facebook.com/documentation/business-messaging/whatsapp/templates/utility-templates/location-templates/
	locationComponents = `[{"type":"HEADER","format":"LOCATION"},
		{"type":"BODY","text":"Good news {{customer_name}}! Your order #{{order_number}} is on its way to the location above.",
		 "example":{"body_text_named_params":[{"param_name":"customer_name","example":"Mark"},{"param_name":"order_number","example":"566701"}]}},
		{"type":"FOOTER","text":"To stop receiving delivery updates, tap the button below."},
		{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Stop Delivery Updates"}]}]`
	// https://developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates/copy-code-button-authentication-templates
	// (created with an OTP button, listed with a URL one).
	otpComponents = `[{"type":"BODY","text":"*{{1}}* is your verification code. For your security, do not share this code.",
		 "add_security_recommendation":true},
		{"type":"FOOTER","text":"This code expires in 5 minutes."},
		{"type":"BUTTONS","buttons":[{"type":"URL","text":"Copy code",
		 "url":"https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=5&code=otp{{1}}","example":["https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp123456"]}]}]`
	// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components
	// (a media header, a URL button with a variable suffix, a phone button).
	mediaComponents = `[{"type":"HEADER","format":"IMAGE","example":{"header_handle":["4::aW1hZ2UvanBlZw==:ARb..."]}},
		{"type":"BODY","text":"Hi {{1}}, your order {{2}} shipped."},
		{"type":"BUTTONS","buttons":[{"type":"URL","text":"Track","url":"https://www.luckyshrub.com/track?order={{1}}","example":["https://www.luckyshrub.com/track?order=A-1"]},
		 {"type":"PHONE_NUMBER","text":"Call","phone_number":"15550051310"}]}]`
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		name, components, format, category string
		want                               channels.TemplateSpec
	}{
		{"coupon", couponComponents, "POSITIONAL", "MARKETING", channels.TemplateSpec{
			Header: &channels.TemplateHeaderSpec{Format: "TEXT", Text: "Our Fall Sale is on!", Params: []string{}},
			Body:   "Shop now through November and use code {{1}} to get {{2}} off of all merchandise!", BodyParams: []string{"1", "2"},
			Buttons: []channels.TemplateButtonSpec{{Type: "QUICK_REPLY", Text: "Unsubscribe"}, {Type: "COPY_CODE"}}}},
		{"location named", locationComponents, "NAMED", "UTILITY", channels.TemplateSpec{Named: true,
			Header:     &channels.TemplateHeaderSpec{Format: "LOCATION"},
			Body:       "Good news {{customer_name}}! Your order #{{order_number}} is on its way to the location above.",
			BodyParams: []string{"customer_name", "order_number"},
			Buttons:    []channels.TemplateButtonSpec{{Type: "QUICK_REPLY", Text: "Stop Delivery Updates"}}}},
		{"authentication", otpComponents, "", "AUTHENTICATION", channels.TemplateSpec{
			Body:       "*{{1}}* is your verification code. For your security, do not share this code.",
			BodyParams: []string{"1"},
			Buttons: []channels.TemplateButtonSpec{{Type: "URL", Text: "Copy code", URLParam: true, OTP: true,
				URL: "https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=5&code=otp{{1}}"}}}},
		{"media and url", mediaComponents, "POSITIONAL", "UTILITY", channels.TemplateSpec{
			Header: &channels.TemplateHeaderSpec{Format: "IMAGE", Params: []string{}},
			Body:   "Hi {{1}}, your order {{2}} shipped.", BodyParams: []string{"1", "2"},
			Buttons: []channels.TemplateButtonSpec{{Type: "URL", Text: "Track", URL: "https://www.luckyshrub.com/track?order={{1}}", URLParam: true},
				{Type: "PHONE_NUMBER", Text: "Call"}}}},
	}
	for _, c := range cases {
		got, err := channels.ParseTemplateSpec([]byte(c.components), "", c.format, c.category)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, *got, c.want)
		}
	}
	// A template known by its body only is that body.
	got, err := channels.ParseTemplateSpec(nil, "Order {{1}} shipped", "", "UTILITY")
	if err != nil || got.Header != nil || !reflect.DeepEqual(got.BodyParams, []string{"1"}) || got.Buttons != nil {
		t.Fatalf("body only: %+v %v", got, err)
	}
	if _, err := channels.ParseTemplateSpec([]byte(`[{"type":"BODY","text":"Hi {{1}} {{3}}"}]`), "", "", "UTILITY"); err == nil {
		t.Fatal("a body with a gap in its placeholders was taken")
	}
}

// conformsTemplate checks a template body against Meta's schemas
// (facebook/openapi business-messaging-api_v23.0.yaml): the base, the
// template's name, and each header and body parameter against the schema
// its type names, each quick reply and URL button against ButtonComponent's
// parameter schemas. The v23.0 schema has no location or coupon_code
// parameter yet; those are compared with Meta's pages (cited in the cases).
func conformsTemplate(t *testing.T, schemas openapi3.Schemas, body map[string]any) {
	t.Helper()
	if err := schemas["BaseMessageProperties"].Value.VisitJSON(map[string]any{"messaging_product": "whatsapp",
		"recipient_type": "individual", "to": body["to"], "type": body["type"]}); err != nil {
		t.Errorf("base: %v", err)
	}
	tpl := body["template"].(map[string]any)
	components, _ := tpl["components"].([]any)
	params := map[string]string{"text": "TextParameter", "image": "ImageParameter", "video": "VideoParameter", "document": "DocumentParameter"}
	for _, c := range components {
		comp := c.(map[string]any)
		for _, p := range comp["parameters"].([]any) {
			kind := p.(map[string]any)["type"].(string)
			name := params[kind]
			if comp["type"] == "button" {
				name = map[string]string{"payload": "ButtonPayloadParameter", "text": "ButtonTextParameter"}[kind]
				if sub := comp["sub_type"]; sub != "quick_reply" && sub != "url" {
					continue
				}
			}
			if name == "" {
				continue
			}
			if err := schemas[name].Value.VisitJSON(p); err != nil {
				t.Errorf("%s parameter against %s: %v", comp["type"], name, err)
			}
		}
	}
}

func TestSendTemplateComponents(t *testing.T) {
	schemas := sendSchemas(t)
	g, a := setup(t)
	cases := []struct {
		name string
		tpl  channels.Template
		want string
	}{
		// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/coupon-code-templates
		{"coupon", channels.Template{Name: "coupon_code_fall2023_25off", Language: "en_US", TemplateParameters: channels.TemplateParameters{
			Body:    []channels.TemplateParam{{Text: "25OFF"}, {Text: "25%"}},
			Buttons: []channels.TemplateButton{{Index: 1, SubType: "copy_code", CouponCode: "25OFF"}}}},
			`{"name":"coupon_code_fall2023_25off","language":{"code":"en_US"},"components":[
			{"type":"body","parameters":[{"type":"text","text":"25OFF"},{"type":"text","text":"25%"}]},
			{"type":"button","sub_type":"copy_code","index":"1","parameters":[{"type":"coupon_code","coupon_code":"25OFF"}]}]}`},
		// https://developers.facebook.com/documentation/business-messaging/whatsapp/templates/utility-templates/location-templates/
		{"location named", channels.Template{Name: "order_delivery_update", Language: "en_US", TemplateParameters: channels.TemplateParameters{
			Header: &channels.TemplateHeader{Kind: "location", Location: &channels.Location{Latitude: 37.44216251868683,
				Longitude: -122.16153582049394, Name: "Philz Coffee", Address: "101 Forest Ave, Palo Alto, CA 94301"}},
			Body: []channels.TemplateParam{{Name: "customer_name", Text: "Mark"}, {Name: "order_number", Text: "566701"}}}},
			`{"name":"order_delivery_update","language":{"code":"en_US"},"components":[
			{"type":"header","parameters":[{"type":"location","location":{"latitude":"37.44216251868683","longitude":"-122.16153582049394",
			 "name":"Philz Coffee","address":"101 Forest Ave, Palo Alto, CA 94301"}}]},
			{"type":"body","parameters":[{"type":"text","parameter_name":"customer_name","text":"Mark"},
			 {"type":"text","parameter_name":"order_number","text":"566701"}]}]}`},
		// https://developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates/copy-code-button-authentication-templates
		{"authentication", channels.Template{Name: "verification_code", Language: "en_US", TemplateParameters: channels.TemplateParameters{
			Body:    []channels.TemplateParam{{Text: "J$FpnYnP"}},
			Buttons: []channels.TemplateButton{{Index: 0, SubType: "url", Text: "J$FpnYnP"}}}},
			`{"name":"verification_code","language":{"code":"en_US"},"components":[
			{"type":"body","parameters":[{"type":"text","text":"J$FpnYnP"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"J$FpnYnP"}]}]}`},
		// https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates (media header, URL and quick reply buttons)
		{"media header and buttons", channels.Template{Name: "order_shipped", Language: "en_US", TemplateParameters: channels.TemplateParameters{
			Header: &channels.TemplateHeader{Kind: "image", Link: "https://files.example/file_1?sig=x"},
			Body:   []channels.TemplateParam{{Text: "Ana"}, {Text: "A-1"}},
			Buttons: []channels.TemplateButton{{Index: 0, SubType: "url", Text: "A-1"},
				{Index: 2, SubType: "quick_reply", Payload: "STOP"}}}},
			`{"name":"order_shipped","language":{"code":"en_US"},"components":[
			{"type":"header","parameters":[{"type":"image","image":{"link":"https://files.example/file_1?sig=x"}}]},
			{"type":"body","parameters":[{"type":"text","text":"Ana"},{"type":"text","text":"A-1"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"A-1"}]},
			{"type":"button","sub_type":"quick_reply","index":"2","parameters":[{"type":"payload","payload":"STOP"}]}]}`},
		{"document header", channels.Template{Name: "invoice", Language: "en_US", TemplateParameters: channels.TemplateParameters{
			Header: &channels.TemplateHeader{Kind: "document", MediaID: "1013859600285441", Filename: "invoice.pdf"}}},
			`{"name":"invoice","language":{"code":"en_US"},"components":[
			{"type":"header","parameters":[{"type":"document","document":{"id":"1013859600285441","filename":"invoice.pdf"}}]}]}`},
	}
	for i, c := range cases {
		m := channels.Message{ID: "msg_t", Channel: "whatsapp", Account: account(), To: "15551234567", Template: &c.tpl}
		r, err := a.Send(context.Background(), &m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.RecipientWaID != "15551234567" {
			t.Errorf("%s: receipt wa_id %q, want the answer's contacts[0].wa_id", c.name, r.RecipientWaID)
		}
		reqs := g.Requests(nil)
		if len(reqs) != i+1 {
			t.Fatalf("%s: %d requests", c.name, len(reqs))
		}
		body := reqs[i].JSON()
		var want map[string]any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(body["template"], want) || body["type"] != "template" || body["to"] != "15551234567" {
			got, _ := json.Marshal(body)
			t.Errorf("%s:\n got %s\nwant template %s", c.name, got, c.want)
		}
		conformsTemplate(t, schemas, body)
	}
}

// Render fills positional placeholders by number; one without a value
// stays as written, so rendering never indexes out of range.
func TestRenderPositional(t *testing.T) {
	tests := []struct {
		name, body string
		values     map[string]string
		want       string
	}{
		{"all given", "Hi {{1}}, order {{2}}", map[string]string{"1": "Ann", "2": "42"}, "Hi Ann, order 42"},
		{"repeated", "{{1}}{{ 1 }}", map[string]string{"1": "a"}, "aa"},
		{"missing stays", "Hi {{1}}, order {{2}}", map[string]string{"1": "Ann"}, "Hi Ann, order {{2}}"},
		{"extra ignored", "Hi {{1}}", map[string]string{"1": "Ann", "2": "extra"}, "Hi Ann"},
		{"zero stays", "Hi {{0}}", map[string]string{"1": "Ann"}, "Hi {{0}}"},
		{"ninety-nine stays", "Hi {{99}}", nil, "Hi {{99}}"},
		{"huge stays", "Hi {{99999999999999999999}}", map[string]string{"1": "Ann"}, "Hi {{99999999999999999999}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := channels.RenderTemplate(tt.body, tt.values); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A body's placeholders are numbered {{1}} to {{n}} without gaps; any
// other numbering is an error.
func TestPositionalParams(t *testing.T) {
	tests := []struct {
		name, body string
		want       int
		wantErr    bool
	}{
		{"none", "Hello there", 0, false},
		{"one", "Hi {{1}}", 1, false},
		{"spaces and repeats", "Hi {{ 1 }}, {{2}} and {{1}} again", 2, false},
		{"zero", "Hi {{0}}", 0, true},
		{"gap", "Hi {{1}} {{3}}", 0, true},
		{"starts at two", "Hi {{2}}", 0, true},
		{"ninety-nine alone", "Hi {{99}}", 0, true},
		{"too many digits", "Hi {{99999999999999999999}}", 0, true},
		{"not a placeholder", "Hi {{name}}", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := channels.PositionalParams(tt.body)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("PositionalParams(%q) = %d, %v; want %d, error %v", tt.body, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// Render fills {{1}} and {{name}} placeholders by the values' keys and
// leaves a placeholder without a value as written.
func TestRender(t *testing.T) {
	for _, c := range []struct {
		text   string
		values map[string]string
		want   string
	}{
		{"Hi {{1}}, order {{ 2 }} shipped {{3}}", map[string]string{"1": "Ana", "2": "A-1"}, "Hi Ana, order A-1 shipped {{3}}"},
		{"Good news {{customer_name}}! #{{order_number}} {{other}}", map[string]string{"customer_name": "Mark", "order_number": "566701"},
			"Good news Mark! #566701 {{other}}"},
		{"Hi {{1}} {{name}}", map[string]string{"name": "Ana"}, "Hi {{1}} Ana"},
		{"Hi {{1}} {{name}}", map[string]string{"1": "Ana"}, "Hi Ana {{name}}"},
		{"Hi {{1}}", nil, "Hi {{1}}"},
	} {
		if got := channels.RenderTemplate(c.text, c.values); got != c.want {
			t.Errorf("Render(%q, %v) = %q, want %q", c.text, c.values, got, c.want)
		}
	}
}
