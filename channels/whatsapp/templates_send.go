package whatsapp

import (
	"strconv"

	"github.com/msgsvc/msgsvc/channels"
)

// templateBody is a template message with Meta's components array: the
// header's parameter, the body's text parameters (parameter_name for a
// template with named parameters) and one component per button that takes
// a parameter. Shapes: https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates
// and the TemplateMessage schema of facebook/openapi
// business-messaging-api_v23.0.yaml.
func templateBody(to string, t *channels.Template) map[string]any {
	tpl := map[string]any{"name": t.Name, "language": map[string]any{"code": t.Language}}
	var components []any
	if h := t.Header; h != nil {
		components = append(components, map[string]any{"type": "header", "parameters": []any{headerParam(h)}})
	}
	if len(t.Body) > 0 {
		params := make([]any, len(t.Body))
		for i, p := range t.Body {
			params[i] = textParam(p)
		}
		components = append(components, map[string]any{"type": "body", "parameters": params})
	}
	for _, b := range t.Buttons {
		var p map[string]any
		switch b.SubType {
		case "quick_reply":
			p = map[string]any{"type": "payload", "payload": b.Payload}
		case "copy_code":
			p = map[string]any{"type": "coupon_code", "coupon_code": b.CouponCode}
		default:
			p = map[string]any{"type": "text", "text": b.Text}
		}
		components = append(components, map[string]any{"type": "button", "sub_type": b.SubType,
			"index": strconv.Itoa(b.Index), "parameters": []any{p}})
	}
	if components != nil {
		tpl["components"] = components
	}
	return map[string]any{"messaging_product": "whatsapp", "to": to, "type": "template", "template": tpl}
}

// textParam is a text parameter, named when the template names them.
func textParam(p channels.TemplateParam) map[string]any {
	out := map[string]any{"type": "text", "text": p.Text}
	if p.Name != "" {
		out["parameter_name"] = p.Name
	}
	return out
}

// headerParam is a header's parameter: text, a media by id or link, or a
// location (coordinates as strings, as in a location message).
func headerParam(h *channels.TemplateHeader) map[string]any {
	switch h.Kind {
	case "text":
		return textParam(h.Text)
	case "location":
		return map[string]any{"type": "location", "location": locationObject(h.Location)}
	}
	media := map[string]any{}
	if h.MediaID != "" {
		media["id"] = h.MediaID
	} else {
		media["link"] = h.Link
	}
	if h.Kind == "document" && h.Filename != "" {
		media["filename"] = h.Filename
	}
	return map[string]any{"type": h.Kind, h.Kind: media}
}
