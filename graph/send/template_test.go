package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// The template rules without a database: body, buttons and the one-time
// password against a template's components.
func TestTemplateParameterRules(t *testing.T) {
	s := func(v string) *string { return &v }
	i := func(v int) *int { return &v }
	spec := func(components, format, category string) *channels.TemplateSpec {
		sp, err := channels.ParseTemplateSpec([]byte(components), "", format, category)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	named := spec(`[{"type":"BODY","text":"Hi {{first_name}}, order {{order}}"}]`, "NAMED", "UTILITY")
	body, values, err := bodyParams(named, "n", &model.TemplateInput{NamedParameters: model.JSON(`{"first_name":"Ana","order":"A-1"}`)}, "")
	if err != nil || len(body) != 2 || body[0].Name != "first_name" || values["order"] != "A-1" {
		t.Fatalf("named: %v %v %v", body, values, err)
	}
	if _, _, err := bodyParams(named, "n", &model.TemplateInput{NamedParameters: model.JSON(`{"first_name":"Ana"}`)}, ""); code(err) != apierr.TemplateParameters {
		t.Errorf("a missing name: %v", err)
	}
	if _, _, err := bodyParams(named, "n", &model.TemplateInput{NamedParameters: model.JSON(`{"first_name":1}`)}, ""); code(err) != apierr.InvalidRequest {
		t.Errorf("a number as a value: %v", err)
	}
	auth := spec(`[{"type":"BODY","text":"{{1}} is your code."},{"type":"BUTTONS","buttons":[{"type":"OTP","otp_type":"COPY_CODE","text":"Copy"}]}]`, "", "AUTHENTICATION")
	c, err := otpCode(auth, &model.TemplateInput{Code: s("123456")})
	if err != nil || c != "123456" {
		t.Fatalf("otp: %q %v", c, err)
	}
	body, _, err = bodyParams(auth, "a", &model.TemplateInput{}, c)
	buttons, berr := buttonParams(auth, nil, c)
	if err != nil || berr != nil || len(body) != 1 || body[0].Text != "123456" || len(buttons) != 1 || buttons[0].SubType != "url" || buttons[0].Text != "123456" {
		t.Fatalf("otp body %v %v, buttons %v %v", body, err, buttons, berr)
	}
	if _, err := otpCode(auth, &model.TemplateInput{}); code(err) != apierr.TemplateParameters {
		t.Errorf("no code: %v", err)
	}
	shop := spec(`[{"type":"BODY","text":"Hi"},{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Stop"},
		{"type":"URL","text":"Shop","url":"https://x.test/{{1}}"},{"type":"URL","text":"Home","url":"https://x.test/"}]}]`, "", "MARKETING")
	_, err = buttonParams(shop, []*model.TemplateButtonInput{{Index: i(0), Payload: s("P")}}, "")
	if e, ok := apierr.As(err); !ok || e.Code != apierr.TemplateParameters ||
		e.Message != "template.buttons[1].url_suffix: missing; the template's button 1 takes it (https://x.test/{{1}})." {
		t.Errorf("a missing URL suffix: %v", err)
	}
	if _, err := buttonParams(shop, []*model.TemplateButtonInput{{Index: i(1), URLSuffix: s("a")}, {Index: i(2), URLSuffix: s("b")}}, ""); code(err) != apierr.TemplateParameters {
		t.Errorf("a suffix on a static URL: %v", err)
	}
	got, err := buttonParams(shop, []*model.TemplateButtonInput{{Index: i(1), URLSuffix: s("a")}}, "")
	if err != nil || len(got) != 1 || got[0].Index != 1 || got[0].Text != "a" {
		t.Errorf("suffix only: %v %v", got, err)
	}
}

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}
