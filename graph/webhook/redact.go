package webhook

import (
	"bytes"
	"encoding/json"

	"github.com/msgsvc/msgsvc/graph/model"
)

// marshalEnvelope writes an envelope as endpoints receive it: compact, with
// <, > and & as they are (email HTML stays readable).
func marshalEnvelope(e model.WebhookEnvelope) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// webhookBody is the body an endpoint receives for a stored envelope: the
// envelope GET /v1/events/{id} returns, or for a metadata-only endpoint its
// redacted form marked metadata_only.
func webhookBody(stored []byte, metadataOnly bool) ([]byte, error) {
	var e model.Event
	if err := json.Unmarshal(stored, &e); err != nil {
		return nil, err
	}
	out := model.WebhookEnvelope{Event: e}
	if metadataOnly {
		data, err := redact(e.Data)
		if err != nil {
			return nil, err
		}
		out.Data, out.MetadataOnly = data, true
	}
	return marshalEnvelope(out)
}

// redact drops from event data what a metadata-only endpoint may not see
// (docs/api.md, Webhooks): message text and bodies, email headers,
// attachment names and links, the sender's name, every contact's name, email and phone, and
// a conversation's subject, which is content too. Ids, types, channels,
// status and times stay.
func redact(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	redactValue(v)
	return json.Marshal(v)
}

var (
	personFields = []string{"name", "email", "phone"}
	// messageFields are a message's content: its words and the typed
	// objects of rich messages the customer wrote or shared (a place, cards,
	// a choice, an order, a story or share, a system notice with numbers).
	messageFields = []string{"text", "html", "html_raw", "email", "location", "contacts", "interactive", "order",
		"story", "share", "system"}
)

func redactValue(v any) {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			redactValue(item)
		}
	case map[string]any:
		switch x["object"] {
		case "message":
			deleteKeys(x, messageFields...)
			if sender, ok := x["sender"].(map[string]any); ok {
				delete(sender, "name")
			}
			if reaction, ok := x["reaction"].(map[string]any); ok {
				delete(reaction, "emoji")
			}
			if files, ok := x["attachments"].([]any); ok {
				for _, f := range files {
					if f, ok := f.(map[string]any); ok {
						deleteKeys(f, "filename", "url", "caption")
					}
				}
			}
		case "contact":
			deleteKeys(x, personFields...)
		case "conversation":
			delete(x, "subject")
		}
		if contact, ok := x["contact"].(map[string]any); ok {
			deleteKeys(contact, personFields...)
		}
		for _, item := range x {
			redactValue(item)
		}
	}
}

func deleteKeys(m map[string]any, keys ...string) {
	for _, k := range keys {
		delete(m, k)
	}
}
