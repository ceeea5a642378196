package whatsapp

import "regexp"

// userID is the form of a business-scoped user id (BSUID): a two-letter
// country code, a period and up to 128 letters and digits, or a parent
// BSUID with ENT between them ("US.13491208655302741918",
// "US.ENT.11815799212886844830";
// https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
var userID = regexp.MustCompile(`^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$`)

// IsUserID says whether s is a business-scoped user id rather than a
// phone number.
func IsUserID(s string) bool { return userID.MatchString(s) }

// recipientOf is how a send names its customer: "to" with the phone's
// digits, or, for a customer known only by business-scoped user id (one
// with a username whose phone WhatsApp does not share), "recipient" with
// that id. Meta takes both on /messages and /marketing_messages and
// prefers "to" when a body has both, so a known phone is always sent as to
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
func recipientOf(to string) (field, value string) {
	if IsUserID(to) {
		return "recipient", to
	}
	return "to", Digits(to)
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
