package instagram

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
)

// richDM sends a reaction (sender_action react / unreact on the message)
// as a request of its own; ok is false for other messages.
func (a *Adapter) richDM(ctx context.Context, n *node, m *channels.Message) (*channels.Receipt, bool, error) {
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
