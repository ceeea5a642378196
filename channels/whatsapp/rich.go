package whatsapp

import (
	"strconv"

	"github.com/msgsvc/msgsvc/channels"
)

// richBody is the /messages body of a reaction, a location or an
// interactive message (the message's text its body), nil for other
// messages. The shapes are the Cloud API's send-message schema
// (facebook/openapi business-messaging-api; docs/whatsapp.md).
func richBody(m *channels.Message, to string) map[string]any {
	body := map[string]any{"messaging_product": "whatsapp", "recipient_type": "individual", "to": to}
	switch {
	case m.Reaction != nil:
		body["type"] = "reaction"
		body["reaction"] = map[string]any{"message_id": m.Reaction.ProviderID, "emoji": m.Reaction.Emoji}
	case m.Location != nil:
		body["type"], body["location"] = "location", locationObject(m.Location)
	case len(m.Contacts) > 0:
		cards := make([]any, len(m.Contacts))
		for i, c := range m.Contacts {
			cards[i] = c
		}
		body["type"], body["contacts"] = "contacts", cards
	case m.Interactive != nil:
		body["type"], body["interactive"] = "interactive", interactive(m)
	default:
		return nil
	}
	return body
}

// locationObject is a place as the send schema types it: the coordinates
// as strings.
func locationObject(l *channels.Location) map[string]any {
	loc := map[string]any{"latitude": strconv.FormatFloat(l.Latitude, 'f', -1, 64),
		"longitude": strconv.FormatFloat(l.Longitude, 'f', -1, 64)}
	if l.Name != "" {
		loc["name"] = l.Name
	}
	if l.Address != "" {
		loc["address"] = l.Address
	}
	return loc
}

// interactive is the interactive object of reply buttons, a list or a
// link button.
func interactive(m *channels.Message) map[string]any {
	it := m.Interactive
	text := ""
	if m.Text != nil {
		text = *m.Text
	}
	out := map[string]any{"body": map[string]any{"text": text}}
	if it.Header != "" {
		out["header"] = map[string]any{"type": "text", "text": it.Header}
	}
	if it.Footer != "" {
		out["footer"] = map[string]any{"text": it.Footer}
	}
	switch it.Type {
	case "buttons":
		buttons := []any{}
		for _, b := range it.Choices {
			buttons = append(buttons, map[string]any{"type": "reply", "reply": map[string]any{"id": b.ID, "title": b.Title}})
		}
		out["type"], out["action"] = "button", map[string]any{"buttons": buttons}
	case "list":
		sections := []any{}
		for _, s := range it.Sections {
			rows := []any{}
			for _, r := range s.Rows {
				row := map[string]any{"id": r.ID, "title": r.Title}
				if r.Description != "" {
					row["description"] = r.Description
				}
				rows = append(rows, row)
			}
			sec := map[string]any{"rows": rows}
			if s.Title != "" {
				sec["title"] = s.Title
			}
			sections = append(sections, sec)
		}
		out["type"], out["action"] = "list", map[string]any{"button": it.Button, "sections": sections}
	case "cta_url":
		out["type"], out["action"] = "cta_url", map[string]any{"name": "cta_url",
			"parameters": map[string]any{"display_text": it.DisplayText, "url": it.URL}}
	}
	return out
}

// quoting makes a body answer the message m quotes (context.message_id).
func quoting(body map[string]any, m *channels.Message) {
	if m.ReplyTo != "" && body != nil {
		body["context"] = map[string]any{"message_id": m.ReplyTo}
	}
}
