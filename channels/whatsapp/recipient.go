package whatsapp

import "github.com/msgsvc/msgsvc/channels"

// recipientOf is how a send names its customer: "to" with the phone's
// digits, or, for a customer known only by business-scoped user id (one
// with a username whose phone WhatsApp does not share), "recipient" with
// that id. Meta takes both on /messages and /marketing_messages and
// prefers "to" when a body has both, so a known phone is always sent as to
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
func recipientOf(to string) (field, value string) {
	if channels.IsWhatsAppUserID(to) {
		return "recipient", to
	}
	return "to", channels.Digits(to)
}

// addressed names the recipient of a body built with "to": the field
// recipientOf chose.
func addressed(body map[string]any, field, value string) map[string]any {
	if body == nil || field == "to" {
		return body
	}
	delete(body, "to")
	body[field] = value
	return body
}
