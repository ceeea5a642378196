package send

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
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
func (s *Service) templateFill(ctx context.Context, q repo.Queries, scope repo.Scope, tpl *repo.Template, in *model.TemplateInput) (channels.TemplateParameters, string, error) {
	var out channels.TemplateParameters
	spec, err := channels.ParseTemplateSpec(tpl.Components, tpl.Body, tpl.ParameterFormat, tpl.Category)
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
	if out.Header, err = s.headerParam(ctx, q, scope, spec.Header, in.Header); err != nil {
		return out, "", err
	}
	if out.Buttons, err = buttonParams(spec, in.Buttons, code); err != nil {
		return out, "", err
	}
	return out, channels.RenderTemplate(spec.Body, values), nil
}

// otpCode is the one-time password of an authentication template: needed
// when the template has a one-time-password button, refused otherwise.
func otpCode(spec *channels.TemplateSpec, in *model.TemplateInput) (string, error) {
	otp := slices.ContainsFunc(spec.Buttons, func(b channels.TemplateButtonSpec) bool { return b.OTP })
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
func bodyParams(spec *channels.TemplateSpec, name string, in *model.TemplateInput, code string) ([]channels.TemplateParam, map[string]string, error) {
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
func (s *Service) headerParam(ctx context.Context, q repo.Queries, scope repo.Scope, spec *channels.TemplateHeaderSpec, in *model.TemplateHeaderInput) (*channels.TemplateHeader, error) {
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
			Longitude: *l.Longitude, Name: deref(l.Name), Address: deref(l.Address)}}, nil
	}
	return s.headerMedia(ctx, q, scope, want, map[string]*model.TemplateMediaInput{"image": in.Image, "video": in.Video, "document": in.Document}[want])
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
func (s *Service) headerMedia(ctx context.Context, q repo.Queries, scope repo.Scope, kind string, m *model.TemplateMediaInput) (*channels.TemplateHeader, error) {
	field := "template.header." + kind
	h := &channels.TemplateHeader{Kind: kind, Filename: deref(m.Filename)}
	switch {
	case (m.FileID == nil) == (m.Link == nil):
		return nil, apierr.New(apierr.InvalidRequest, "%s needs file_id or link (one of them).", field)
	case m.Link != nil:
		if !isHTTP(*m.Link) {
			return nil, apierr.New(apierr.InvalidRequest, "%s.link must be an http(s) URL.", field)
		}
		h.Link = *m.Link
		return h, nil
	}
	rows, err := q.FilesByID(ctx, scope, []string{*m.FileID})
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
	h.Link = s.Files.URL(f.ID)
	return h, nil
}
