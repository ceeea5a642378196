package send

import (
	"fmt"
	"slices"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// buttonParams are the buttons' parameters, in the template's order: a
// quick reply's payload (optional), a URL button's suffix, a copy-code
// button's coupon code, and the one-time password of an authentication
// template's button.
func buttonParams(spec *channels.TemplateSpec, in []*model.TemplateButtonInput, code string) ([]channels.TemplateButton, error) {
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
			if err = needs(field, i, b, "url_suffix", bs.URL); err == nil {
				p = &channels.TemplateButton{Index: i, SubType: "url", Text: *b.URLSuffix}
			}
		case bs.Type == "COPY_CODE":
			if err = needs(field, i, b, "coupon_code", "a coupon code"); err == nil {
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

// needs requires one parameter of the template's button i and refuses the
// others.
func needs(field string, i int, b *model.TemplateButtonInput, name, what string) error {
	if !slices.Contains(buttonFields(b), name) {
		return mismatch(field+"."+name, "missing; the template's button %d takes it (%s).", i, what)
	}
	return only(field, b, name)
}
