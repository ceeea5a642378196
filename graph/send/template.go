package send

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Limits of a template send Meta documents: a one-time password and a
// coupon code are at most 15 characters
// (https://developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates,
// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/coupon-code-templates).
const (
	otpMax    = 15
	couponMax = 15
)

// TemplateParams is how many parameters a template body takes, its
// placeholders numbered {{1}} to {{n}} without gaps (an error otherwise).
func TemplateParams(body string) (int, error) { return whatsapp.PositionalParams(body) }

// renderTemplate puts the parameters in a body's {{n}} placeholders. A
// placeholder without a parameter stays as written: rendering never
// indexes out of range.
func renderTemplate(body string, params []string) string {
	values := make(map[string]string, len(params))
	for i, p := range params {
		values[strconv.Itoa(i+1)] = p
	}
	return whatsapp.Render(body, values)
}

// mismatch is 422 template_parameters_invalid naming the field.
func mismatch(field, format string, args ...any) error {
	return apierr.New(apierr.TemplateParameters, "%s: "+format, append([]any{field}, args...)...)
}

// templateFill checks a send's template parameters against the stored
// template's components, before any provider call: every placeholder of
// the header and body has its value, every button that takes a parameter
// has it, nothing is given that the template does not take, and media and
// locations are of the header's kind. It returns the parameters and the
// body as rendered (the stored message's text).
func (r *Service) templateFill(ctx context.Context, q repo.Queries, s repo.Scope, tpl *repo.Template, in *model.TemplateInput) (channels.TemplateParameters, string, error) {
	var out channels.TemplateParameters
	spec, err := whatsapp.ParseSpec(tpl.Components, tpl.Body, tpl.ParameterFormat, tpl.Category)
	if err != nil {
		return out, "", fmt.Errorf("send: template %s (%s): %w", tpl.Name, tpl.Language, err)
	}
	code, err := otpCode(spec, in)
	if err != nil {
		return out, "", err
	}
	body, values, err := bodyParams(spec, tpl.Name, in, code)
	if err != nil {
		return out, "", err
	}
	out.Body = body
	if out.Header, err = r.headerParam(ctx, q, s, spec.Header, in.Header); err != nil {
		return out, "", err
	}
	if out.Buttons, err = buttonParams(spec, in.Buttons, code); err != nil {
		return out, "", err
	}
	return out, whatsapp.Render(spec.Body, values), nil
}

// otpCode is the one-time password of an authentication template: needed
// when the template has a one-time-password button, refused otherwise.
func otpCode(spec *whatsapp.Spec, in *model.TemplateInput) (string, error) {
	otp := slices.ContainsFunc(spec.Buttons, func(b whatsapp.ButtonSpec) bool { return b.OTP })
	switch {
	case in.Code == nil && otp:
		return "", mismatch("template.code", "the template has a one-time-password button; give the code.")
	case in.Code == nil:
		return "", nil
	case !otp:
		return "", mismatch("template.code", "the template has no one-time-password button.")
	case strings.TrimSpace(*in.Code) == "":
		return "", mismatch("template.code", "must not be empty.")
	case chars(*in.Code) > otpMax:
		return "", over("template.code", "a one-time password is at most %d characters.", otpMax)
	}
	return *in.Code, nil
}

// bodyParams are the body's values: positional (parameters, or the
// one-time password for an authentication body of one placeholder) or
// named (named_parameters, an object of strings).
func bodyParams(spec *whatsapp.Spec, name string, in *model.TemplateInput, code string) ([]channels.TemplateParam, map[string]string, error) {
	var byName map[string]string
	if len(in.NamedParameters) > 0 && string(in.NamedParameters) != "null" {
		if err := json.Unmarshal(in.NamedParameters, &byName); err != nil {
			return nil, nil, apierr.New(apierr.InvalidRequest, "template.named_parameters must be an object of strings.")
		}
	}
	values := map[string]string{}
	var out []channels.TemplateParam
	if !spec.Named {
		if byName != nil {
			return nil, nil, mismatch("template.named_parameters", "template %s numbers its parameters {{1}}, {{2}} …; give them as parameters.", name)
		}
		params := in.Parameters
		if params == nil && code != "" && len(spec.BodyParams) == 1 {
			params = []string{code}
		}
		if len(params) != len(spec.BodyParams) {
			return nil, nil, apierr.New(apierr.InvalidRequest, "Template %s takes %d parameters; %d were given.", name, len(spec.BodyParams), len(params))
		}
		for i, p := range params {
			values[strconv.Itoa(i+1)] = p
			out = append(out, channels.TemplateParam{Text: p})
		}
		return out, values, nil
	}
	if len(in.Parameters) > 0 {
		return nil, nil, mismatch("template.parameters", "template %s names its parameters; give them as named_parameters.", name)
	}
	for _, n := range spec.BodyParams {
		v, ok := byName[n]
		if !ok {
			return nil, nil, mismatch("template.named_parameters."+n, "missing; template %s takes %s.", name, strings.Join(spec.BodyParams, ", "))
		}
		values[n] = v
		out = append(out, channels.TemplateParam{Name: n, Text: v})
	}
	for n := range byName {
		if !slices.Contains(spec.BodyParams, n) {
			return nil, nil, mismatch("template.named_parameters."+n, "template %s has no {{%s}} in its body.", name, n)
		}
	}
	return out, values, nil
}

// headerParam is the header's parameter: the text's one placeholder, the
// media of the header's kind, or its location. A header without a
// placeholder (or no header) takes nothing.
func (r *Service) headerParam(ctx context.Context, q repo.Queries, s repo.Scope, spec *whatsapp.HeaderSpec, in *model.TemplateHeaderInput) (*channels.TemplateHeader, error) {
	given := headerKinds(in)
	want := ""
	if spec != nil && (spec.Format != "TEXT" || len(spec.Params) > 0) {
		want = strings.ToLower(spec.Format)
	}
	switch {
	case want == "" && len(given) > 0:
		return nil, mismatch("template.header."+given[0], "the template's header takes no parameter.")
	case want == "":
		return nil, nil
	case len(given) == 0:
		return nil, mismatch("template.header."+want, "the template's header is %s; give it.", want)
	case len(given) > 1 || given[0] != want:
		return nil, mismatch("template.header."+given[0], "the template's header is %s; give template.header.%s only.", want, want)
	}
	switch want {
	case "text":
		p := channels.TemplateParam{Text: *in.Text}
		if spec.Params[0] != "1" {
			p.Name = spec.Params[0]
		}
		return &channels.TemplateHeader{Kind: "text", Text: p}, nil
	case "location":
		l := in.Location
		if l.Latitude == nil || l.Longitude == nil {
			return nil, apierr.New(apierr.InvalidRequest, "template.header.location needs latitude and longitude.")
		}
		if *l.Latitude < -90 || *l.Latitude > 90 || *l.Longitude < -180 || *l.Longitude > 180 {
			return nil, over("template.header.location", "latitude must be between -90 and 90, longitude between -180 and 180.")
		}
		return &channels.TemplateHeader{Kind: "location", Location: &channels.Location{Latitude: *l.Latitude,
			Longitude: *l.Longitude, Name: str(l.Name), Address: str(l.Address)}}, nil
	}
	return r.headerMedia(ctx, q, s, want, map[string]*model.TemplateMediaInput{"image": in.Image, "video": in.Video, "document": in.Document}[want])
}

// headerKinds names the header parameters given.
func headerKinds(in *model.TemplateHeaderInput) []string {
	if in == nil {
		return nil
	}
	var out []string
	for _, k := range []struct {
		name string
		set  bool
	}{{"text", in.Text != nil}, {"image", in.Image != nil}, {"video", in.Video != nil},
		{"document", in.Document != nil}, {"location", in.Location != nil}} {
		if k.set {
			out = append(out, k.name)
		}
	}
	return out
}

// headerMedia is a header's image, video or document: an uploaded file of
// the workspace (sent as a signed link WhatsApp fetches) checked against
// the kind's types and size, or an http(s) link.
func (r *Service) headerMedia(ctx context.Context, q repo.Queries, s repo.Scope, kind string, m *model.TemplateMediaInput) (*channels.TemplateHeader, error) {
	field := "template.header." + kind
	h := &channels.TemplateHeader{Kind: kind, Filename: str(m.Filename)}
	switch {
	case (m.FileID == nil) == (m.Link == nil):
		return nil, apierr.New(apierr.InvalidRequest, "%s needs file_id or link (one of them).", field)
	case m.Link != nil:
		if !strings.HasPrefix(*m.Link, "https://") && !strings.HasPrefix(*m.Link, "http://") {
			return nil, apierr.New(apierr.InvalidRequest, "%s.link must be an http(s) URL.", field)
		}
		h.Link = *m.Link
		return h, nil
	}
	rows, err := q.FilesByID(ctx, s, []string{*m.FileID})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, apierr.New(apierr.FileNotFound, "%s.file_id: no uploaded file %s.", field, *m.FileID)
	}
	f := rows[0]
	if err := mediaFits(field, kind, f.ContentType, f.Size); err != nil {
		return nil, err
	}
	if h.Filename == "" {
		h.Filename = f.Filename
	}
	h.Link = r.Files.URL(f.ID)
	return h, nil
}

// buttonParams are the buttons' parameters, in the template's order: a
// quick reply's payload (optional), a URL button's suffix, a copy-code
// button's coupon code, and the one-time password of an authentication
// template's button.
func buttonParams(spec *whatsapp.Spec, in []*model.TemplateButtonInput, code string) ([]channels.TemplateButton, error) {
	given := map[int]*model.TemplateButtonInput{}
	for i, b := range in {
		field := fmt.Sprintf("template.buttons[%d]", i)
		switch {
		case b == nil || b.Index == nil:
			return nil, apierr.New(apierr.InvalidRequest, "%s needs index (the button's position in the template, from 0).", field)
		case *b.Index < 0 || *b.Index >= len(spec.Buttons):
			return nil, mismatch(field+".index", "the template has %d buttons; there is no button %d.", len(spec.Buttons), *b.Index)
		case given[*b.Index] != nil:
			return nil, mismatch(field+".index", "button %d is given twice.", *b.Index)
		}
		given[*b.Index] = b
	}
	var out []channels.TemplateButton
	for i, bs := range spec.Buttons {
		b, field := given[i], fmt.Sprintf("template.buttons[%d]", i)
		var p *channels.TemplateButton
		var err error
		switch {
		case bs.OTP:
			if b != nil {
				return nil, mismatch(field, "the one-time-password button takes template.code.")
			}
			p = &channels.TemplateButton{Index: i, SubType: "url", Text: code}
		case bs.Type == "QUICK_REPLY":
			if err = only(field, b, "payload"); err == nil && b != nil {
				p = &channels.TemplateButton{Index: i, SubType: "quick_reply", Payload: *b.Payload}
			}
		case bs.Type == "URL" && bs.URLParam:
			if err = needs(field, b, "url_suffix", bs.URL); err == nil {
				p = &channels.TemplateButton{Index: i, SubType: "url", Text: *b.URLSuffix}
			}
		case bs.Type == "COPY_CODE":
			if err = needs(field, b, "coupon_code", "a coupon code"); err == nil {
				if chars(*b.CouponCode) > couponMax {
					return nil, over(field+".coupon_code", "a coupon code is at most %d characters.", couponMax)
				}
				p = &channels.TemplateButton{Index: i, SubType: "copy_code", CouponCode: *b.CouponCode}
			}
		default:
			err = only(field, b, "")
		}
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// buttonFields names the parameters a button input gives.
func buttonFields(b *model.TemplateButtonInput) []string {
	var out []string
	if b == nil {
		return nil
	}
	if b.Payload != nil {
		out = append(out, "payload")
	}
	if b.URLSuffix != nil {
		out = append(out, "url_suffix")
	}
	if b.CouponCode != nil {
		out = append(out, "coupon_code")
	}
	return out
}

// only refuses any parameter of a button but allowed ("" none).
func only(field string, b *model.TemplateButtonInput, allowed string) error {
	for _, f := range buttonFields(b) {
		if f != allowed {
			if allowed == "" {
				return mismatch(field+"."+f, "this button of the template takes no parameter.")
			}
			return mismatch(field+"."+f, "this button of the template takes %s only.", allowed)
		}
	}
	return nil
}

// needs requires one parameter of a button and refuses the others.
func needs(field string, b *model.TemplateButtonInput, name, what string) error {
	if !slices.Contains(buttonFields(b), name) {
		return mismatch(field+"."+name, "missing; the template's button %s takes it (%s).", buttonIndex(field), what)
	}
	return only(field, b, name)
}

// buttonIndex is the index in a "template.buttons[i]" field.
func buttonIndex(field string) string {
	return strings.TrimSuffix(field[strings.LastIndex(field, "[")+1:], "]")
}
