package whatsapp_test

import (
	"context"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// sendSchemas are Meta's send-message schemas: testdata/meta-send-message-v23.json
// is copied from github.com/facebook/openapi business-messaging-api_v23.0.yaml
// (the schemas reachable from Message, the body of
// POST /{Version}/{Phone-Number-ID}/messages).
func sendSchemas(t *testing.T) openapi3.Schemas {
	t.Helper()
	raw, err := os.ReadFile("testdata/meta-send-message-v23.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// conforms checks a body the stand-in received against Meta's schema of its
// type. The published schema is an allOf of BaseMessageProperties and a
// part of the type's own that closes itself with additionalProperties:
// false, so no whole body can satisfy both literally; each part is checked
// on what it describes: the base on the body, the type's part on the
// body's type and object.
func conforms(t *testing.T, schemas openapi3.Schemas, body map[string]any) {
	t.Helper()
	kind, _ := body["type"].(string)
	names := map[string]string{"reaction": "ReactionMessage", "location": "LocationMessage", "interactive": "InteractiveMessage", "text": "TextMessage",
		"contacts": "ContactsMessage"}
	ref := schemas[names[kind]]
	if ref == nil {
		t.Fatalf("no schema for type %q", kind)
	}
	if err := schemas["BaseMessageProperties"].Value.VisitJSON(body); err != nil {
		t.Errorf("%s body against BaseMessageProperties: %v\n%v", kind, err, body)
	}
	own := map[string]any{"type": kind, kind: body[kind]}
	if err := ref.Value.AllOf[1].Value.VisitJSON(own); err != nil {
		t.Errorf("%s body against %s: %v\n%v", kind, names[kind], err, body)
	}
}

func TestSendRichShapes(t *testing.T) {
	schemas := sendSchemas(t)
	g, a := setup(t)
	cases := []struct {
		name string
		m    channels.Message
		want string
	}{
		{"reaction", channels.Message{ID: "msg_r", Rich: channels.Rich{Reaction: &channels.Reaction{ProviderID: "wamid.IN", Emoji: "👍"}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"reaction",
			"reaction":{"message_id":"wamid.IN","emoji":"👍"},"biz_opaque_callback_data":"msg_r"}`},
		{"unreaction", channels.Message{ID: "msg_u", Rich: channels.Rich{Reaction: &channels.Reaction{ProviderID: "wamid.IN"}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"reaction",
			"reaction":{"message_id":"wamid.IN","emoji":""},"biz_opaque_callback_data":"msg_u"}`},
		{"location", channels.Message{ID: "msg_l", Rich: channels.Rich{Location: &channels.Location{Latitude: 37.4847, Longitude: -122.1486,
			Name: "Meta HQ", Address: "1 Hacker Way, Menlo Park, CA 94025"}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"location",
			"location":{"latitude":"37.4847","longitude":"-122.1486","name":"Meta HQ","address":"1 Hacker Way, Menlo Park, CA 94025"},
			"biz_opaque_callback_data":"msg_l"}`},
		{"buttons quoting", channels.Message{ID: "msg_b", Text: str("Change the order?"), Rich: channels.Rich{ReplyTo: "wamid.IN",
			Interactive: &channels.Interactive{Type: "buttons", Header: "Order A-1", Footer: "Lucky Shrub",
				Choices: []channels.Choice{{ID: "change-button", Title: "Change"}, {ID: "cancel-button", Title: "Cancel"}}}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"interactive",
			"context":{"message_id":"wamid.IN"},"biz_opaque_callback_data":"msg_b",
			"interactive":{"type":"button","header":{"type":"text","text":"Order A-1"},"body":{"text":"Change the order?"},
			"footer":{"text":"Lucky Shrub"},"action":{"buttons":[{"type":"reply","reply":{"id":"change-button","title":"Change"}},
			{"type":"reply","reply":{"id":"cancel-button","title":"Cancel"}}]}}}`},
		{"list", channels.Message{ID: "msg_list", Text: str("Which shipping?"), Rich: channels.Rich{Interactive: &channels.Interactive{
			Type: "list", Button: "Shipping options", Sections: []channels.Section{{Title: "I want it ASAP!", Rows: []channels.Choice{
				{ID: "priority_express", Title: "Express Shipping", Description: "Next Day to 2 Days"},
				{ID: "priority_mail", Title: "Priority Mail"}}}}}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"interactive",
			"biz_opaque_callback_data":"msg_list","interactive":{"type":"list","body":{"text":"Which shipping?"},
			"action":{"button":"Shipping options","sections":[{"title":"I want it ASAP!","rows":[
			{"id":"priority_express","title":"Express Shipping","description":"Next Day to 2 Days"},{"id":"priority_mail","title":"Priority Mail"}]}]}}}`},
		// cta_url: https://developers.facebook.com/documentation/business-messaging/whatsapp/messages/interactive-cta-url-messages
		// (the v23.0 schema's interactive.type enum does not list it yet).
		{"cta_url", channels.Message{ID: "msg_cta", Text: str("See the dates"), Rich: channels.Rich{Interactive: &channels.Interactive{
			Type: "cta_url", DisplayText: "See Dates", URL: "https://www.luckyshrub.com?clickID=kqDGWd24Q5TRwoEQTICY7W1JKoXvaZOXWAS7h1P76s0R7Paec4"}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"interactive",
			"biz_opaque_callback_data":"msg_cta","interactive":{"type":"cta_url","body":{"text":"See the dates"},
			"action":{"name":"cta_url","parameters":{"display_text":"See Dates","url":"https://www.luckyshrub.com?clickID=kqDGWd24Q5TRwoEQTICY7W1JKoXvaZOXWAS7h1P76s0R7Paec4"}}}}`},
		// https://developers.facebook.com/docs/whatsapp/cloud-api/messages/contacts-messages
		{"contacts", channels.Message{ID: "msg_c", Rich: channels.Rich{Contacts: []map[string]any{{
			"name":   map[string]any{"formatted_name": "Barbara J. Johnson", "first_name": "Barbara", "last_name": "Johnson"},
			"phones": []any{map[string]any{"phone": "+19195551234", "type": "WORK", "wa_id": "19195551234"}},
			"emails": []any{map[string]any{"email": "bjohnson@luckyshrub.com", "type": "WORK"}},
			"org":    map[string]any{"company": "Lucky Shrub", "title": "Lead Counsel"}, "birthday": "1999-01-23"}}}},
			`{"messaging_product":"whatsapp","recipient_type":"individual","to":"15551234567","type":"contacts",
			"biz_opaque_callback_data":"msg_c","contacts":[{"name":{"formatted_name":"Barbara J. Johnson","first_name":"Barbara","last_name":"Johnson"},
			"phones":[{"phone":"+19195551234","type":"WORK","wa_id":"19195551234"}],"emails":[{"email":"bjohnson@luckyshrub.com","type":"WORK"}],
			"org":{"company":"Lucky Shrub","title":"Lead Counsel"},"birthday":"1999-01-23"}]}`},
	}
	for i, c := range cases {
		c.m.Channel, c.m.Account, c.m.To = "whatsapp", account(), "15551234567"
		if _, err := a.Send(context.Background(), &c.m); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		reqs := g.Requests(nil)
		if len(reqs) != i+1 {
			t.Fatalf("%s: %d requests", c.name, len(reqs))
		}
		body := reqs[i].JSON()
		metatest.SameJSON(t, body, c.want)
		if c.name != "cta_url" {
			conforms(t, schemas, body)
		}
	}
	// A text that quotes a message carries context.
	if _, err := a.Send(context.Background(), &channels.Message{ID: "msg_q", Channel: "whatsapp", Account: account(), To: "15551234567",
		Text: str("Yes"), Rich: channels.Rich{ReplyTo: "wamid.IN"}}); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests(nil)
	metatest.SameJSON(t, reqs[len(reqs)-1].JSON(), `{"messaging_product":"whatsapp","to":"15551234567","type":"text",
		"text":{"body":"Yes"},"context":{"message_id":"wamid.IN"},"biz_opaque_callback_data":"msg_q"}`)
}

// The oracle refuses what Meta refuses: four reply buttons, a reaction with
// a field of its own.
func TestSendSchemaRefusesWrongShapes(t *testing.T) {
	schemas := sendSchemas(t)
	button := map[string]any{"type": "reply", "reply": map[string]any{"id": "a", "title": "A"}}
	four := map[string]any{"type": "interactive", "interactive": map[string]any{"type": "button", "body": map[string]any{"text": "x"},
		"action": map[string]any{"buttons": []any{button, button, button, button}}}}
	if err := schemas["InteractiveMessage"].Value.AllOf[1].Value.VisitJSON(four); err == nil {
		t.Error("four reply buttons passed the schema")
	}
	odd := map[string]any{"type": "reaction", "reaction": map[string]any{"message_id": "w", "emoji": "x", "target": "w"}}
	if err := schemas["ReactionMessage"].Value.AllOf[1].Value.VisitJSON(odd); err == nil {
		t.Error("a reaction with an unknown field passed the schema")
	}
}
