package instagram

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
)

// richDM sends a generic template, or a reaction (sender_action react /
// unreact on the message), as a request of its own; ok is false for other
// messages.
func (a *Adapter) richDM(ctx context.Context, n *node, m *channels.Message) (*channels.Receipt, bool, error) {
	if it := m.Interactive; it != nil && it.Type == "generic" {
		body := genericBody(m)
		tagged(body, m)
		id, err := a.message(ctx, n, body)
		if err != nil {
			return nil, true, err
		}
		return &channels.Receipt{ProviderIDs: []string{id}}, true, nil
	}
	r := m.Reaction
	if r == nil {
		return nil, false, nil
	}
	body := map[string]any{"recipient": map[string]any{"id": m.To}, "sender_action": "unreact",
		"payload": map[string]any{"message_id": r.ProviderID}}
	if r.Emoji != "" {
		body["sender_action"] = "react"
		body["payload"].(map[string]any)["reaction"] = "love"
	}
	// A sender action is answered with the recipient only: the reaction's
	// own id is ours.
	var out struct {
		RecipientID string `json:"recipient_id"`
	}
	if err := n.client.PostJSON(ctx, n.token, body, &out, n.id, "messages"); err != nil {
		return nil, true, err
	}
	return &channels.Receipt{ProviderIDs: []string{"react:" + m.ID}}, true, nil
}

// richText adds quick replies and the quoted message to a DM's text body.
func richText(body map[string]any, m *channels.Message) {
	if it := m.Interactive; it != nil && it.Type == "quick_replies" {
		replies := []any{}
		for _, q := range it.Choices {
			replies = append(replies, map[string]any{"content_type": "text", "title": q.Title, "payload": q.ID})
		}
		body["message"].(map[string]any)["quick_replies"] = replies
	}
	if m.ReplyTo != "" {
		body["reply_to"] = map[string]any{"mid": m.ReplyTo}
	}
}

// genericBody is a generic template: cards of a title, an optional
// subtitle and image, a default web_url action and buttons
// (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/generic-template).
func genericBody(m *channels.Message) map[string]any {
	elements := []any{}
	for _, e := range m.Interactive.Elements {
		el := map[string]any{"title": e.Title}
		if e.Subtitle != "" {
			el["subtitle"] = e.Subtitle
		}
		if e.ImageURL != "" {
			el["image_url"] = e.ImageURL
		}
		if e.URL != "" {
			el["default_action"] = map[string]any{"type": "web_url", "url": e.URL}
		}
		if len(e.Buttons) > 0 {
			buttons := []any{}
			for _, b := range e.Buttons {
				button := map[string]any{"type": b.Type, "title": b.Title}
				if b.Type == "web_url" {
					button["url"] = b.URL
				} else {
					button["payload"] = b.Payload
				}
				buttons = append(buttons, button)
			}
			el["buttons"] = buttons
		}
		elements = append(elements, el)
	}
	body := map[string]any{"recipient": map[string]any{"id": m.To}, "message": map[string]any{"attachment": map[string]any{
		"type": "template", "payload": map[string]any{"template_type": "generic", "elements": elements}}}}
	if m.ReplyTo != "" {
		body["reply_to"] = map[string]any{"mid": m.ReplyTo}
	}
	return body
}
