package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
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
	if err != nil {
		t.Fatalf("named: error: got %v, want none", err)
	}
	if len(body) != 2 {
		t.Fatalf("named: body parameters: got %d, want 2", len(body))
	}
	if body[0].Name != "first_name" {
		t.Errorf("named: body[0].Name: got %q, want first_name", body[0].Name)
	}
	if values["order"] != "A-1" {
		t.Errorf("named: values[order]: got %q, want A-1", values["order"])
	}
	_, _, err = bodyParams(named, "n", &model.TemplateInput{NamedParameters: model.JSON(`{"first_name":"Ana"}`)}, "")
	apierrtest.Want(t, err, apierr.TemplateParameters, "")
	_, _, err = bodyParams(named, "n", &model.TemplateInput{NamedParameters: model.JSON(`{"first_name":1}`)}, "")
	apierrtest.Want(t, err, apierr.InvalidRequest, "")
	auth := spec(`[{"type":"BODY","text":"{{1}} is your code."},{"type":"BUTTONS","buttons":[{"type":"OTP","otp_type":"COPY_CODE","text":"Copy"}]}]`, "", "AUTHENTICATION")
	c, err := otpCode(auth, &model.TemplateInput{Code: s("123456")})
	if err != nil || c != "123456" {
		t.Fatalf("otp code: got %q (error %v), want 123456", c, err)
	}
	body, _, err = bodyParams(auth, "a", &model.TemplateInput{}, c)
	if err != nil || len(body) != 1 || body[0].Text != "123456" {
		t.Fatalf("otp body: got %v (error %v), want one parameter 123456", body, err)
	}
	buttons, err := buttonParams(auth, nil, c)
	if err != nil || len(buttons) != 1 {
		t.Fatalf("otp buttons: got %v (error %v), want one", buttons, err)
	}
	if buttons[0].SubType != "url" || buttons[0].Text != "123456" {
		t.Errorf("otp button: got sub_type %q text %q, want url 123456", buttons[0].SubType, buttons[0].Text)
	}
	_, err = otpCode(auth, &model.TemplateInput{})
	apierrtest.Want(t, err, apierr.TemplateParameters, "")
	shop := spec(`[{"type":"BODY","text":"Hi"},{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Stop"},
		{"type":"URL","text":"Shop","url":"https://x.test/{{1}}"},{"type":"URL","text":"Home","url":"https://x.test/"}]}]`, "", "MARKETING")
	_, err = buttonParams(shop, []*model.TemplateButtonInput{{Index: i(0), Payload: s("P")}}, "")
	apierrtest.Want(t, err, apierr.TemplateParameters,
		"template.buttons[1].url_suffix: missing; the template's button 1 takes it (https://x.test/{{1}}).")
	_, err = buttonParams(shop, []*model.TemplateButtonInput{{Index: i(1), URLSuffix: s("a")}, {Index: i(2), URLSuffix: s("b")}}, "")
	apierrtest.Want(t, err, apierr.TemplateParameters, "")
	got, err := buttonParams(shop, []*model.TemplateButtonInput{{Index: i(1), URLSuffix: s("a")}}, "")
	if err != nil || len(got) != 1 {
		t.Fatalf("suffix only: got %v (error %v), want one button", got, err)
	}
	if got[0].Index != 1 || got[0].Text != "a" {
		t.Errorf("suffix only: got index %d text %q, want 1 a", got[0].Index, got[0].Text)
	}
}
