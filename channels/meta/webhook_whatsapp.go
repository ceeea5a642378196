package meta

import (
	"encoding/json"
	"strconv"
	"time"
)

// WhatsAppRoute is where a WhatsApp event belongs: the WABA (entry id) and,
// for messages, statuses and preferences, the number (value.metadata).
type WhatsAppRoute struct {
	WABAID             string
	PhoneNumberID      string
	DisplayPhoneNumber string
}

// Channel is "whatsapp".
func (WhatsAppRoute) Channel() string { return "whatsapp" }

// RouteID is the phone number id, or the WABA id for events of the WABA.
func (r WhatsAppRoute) RouteID() string {
	if r.PhoneNumberID != "" {
		return r.PhoneNumberID
	}
	return r.WABAID
}

// WhatsAppError is one item of errors[] (a failed status, an unsupported
// message).
type WhatsAppError struct {
	Code    int    `json:"code"`
	Title   string `json:"title"`
	Message string `json:"message"`
	Details string `json:"-"`
}

// UnmarshalJSON reads error_data.details too.
func (e *WhatsAppError) UnmarshalJSON(b []byte) error {
	type plain WhatsAppError
	var v struct {
		plain
		ErrorData struct {
			Details string `json:"details"`
		} `json:"error_data"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = WhatsAppError(v.plain)
	e.Details = v.ErrorData.Details
	return nil
}

// Reason is the provider's code and text: "131026: Message undeliverable".
func (e WhatsAppError) Reason() string {
	text := e.Title
	if text == "" {
		text = e.Message
	}
	if text == "" {
		return strconv.Itoa(e.Code)
	}
	return strconv.Itoa(e.Code) + ": " + text
}

// WhatsAppStatus is a status of an outbound message (value.statuses[]):
// sent, delivered, read, failed (with Errors) or played.
type WhatsAppStatus struct {
	WhatsAppRoute
	// ID is the wamid of our message.
	ID string
	// RecipientID is the customer's wa_id (recipient_id), RecipientUserID
	// the business-scoped user id (recipient_user_id, or the user_id of
	// value.contacts[]); either may be "".
	RecipientID     string
	RecipientUserID string
	Status          string
	Timestamp       time.Time
	Errors          []WhatsAppError
	// BizOpaqueCallbackData is what the send carried, if anything.
	BizOpaqueCallbackData string
}

// WhatsAppUserPreference is a customer stopping ("stop") or resuming
// ("resume") marketing messages from the WhatsApp app.
type WhatsAppUserPreference struct {
	WhatsAppRoute
	WAID      string
	UserID    string
	Category  string
	Value     string
	Detail    string
	Timestamp time.Time
}

// WhatsAppTemplateStatus is a message_template_status_update: Event is
// APPROVED, REJECTED, PAUSED, DISABLED, ... for one template.
type WhatsAppTemplateStatus struct {
	WhatsAppRoute
	TemplateID string
	Name       string
	Language   string
	Event      string
	Reason     string
}

// WhatsAppAccountUpdate is any other field of the WABA (account_update,
// phone_number_quality_update, account_review_update, template quality or
// category updates, ...): Event is value.event when there is one.
type WhatsAppAccountUpdate struct {
	WhatsAppRoute
	Field string
	Event string
	Value json.RawMessage
}

type waValue struct {
	Metadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      ID     `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []waContact       `json:"contacts"`
	Messages []json.RawMessage `json:"messages"`
	// Errors are the value's own (not a message's or a status's).
	Errors   []WhatsAppError `json:"errors"`
	Statuses []struct {
		ID              string          `json:"id"`
		RecipientID     string          `json:"recipient_id"`
		RecipientUserID string          `json:"recipient_user_id"`
		Status          string          `json:"status"`
		Timestamp       Time            `json:"timestamp"`
		Errors          []WhatsAppError `json:"errors"`
		Callback        string          `json:"biz_opaque_callback_data"`
	} `json:"statuses"`
	UserPreferences []struct {
		WAID      string `json:"wa_id"`
		UserID    string `json:"user_id"`
		Category  string `json:"category"`
		Value     string `json:"value"`
		Detail    string `json:"detail"`
		Timestamp Time   `json:"timestamp"`
	} `json:"user_preferences"`
	// message_template_status_update
	Event            string `json:"event"`
	TemplateID       ID     `json:"message_template_id"`
	TemplateName     string `json:"message_template_name"`
	TemplateLanguage string `json:"message_template_language"`
	Reason           string `json:"reason"`
}

func (p *Payload) whatsAppEntry(raw json.RawMessage) error {
	var entry struct {
		ID      ID       `json:"id"`
		Changes []change `json:"changes"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	for _, ch := range entry.Changes {
		var v waValue
		if err := json.Unmarshal(ch.Value, &v); err != nil {
			return err
		}
		route := WhatsAppRoute{WABAID: string(entry.ID), PhoneNumberID: string(v.Metadata.PhoneNumberID),
			DisplayPhoneNumber: v.Metadata.DisplayPhoneNumber}
		if len(v.Errors) > 0 {
			p.Events = append(p.Events, &WhatsAppValueErrors{WhatsAppRoute: route, Field: ch.Field, Errors: v.Errors})
		}
		switch ch.Field {
		case "messages":
			if err := p.whatsAppMessages(route, &v); err != nil {
				return err
			}
			p.whatsAppStatuses(route, &v)
		case "user_preferences":
			for _, u := range v.UserPreferences {
				p.Events = append(p.Events, &WhatsAppUserPreference{WhatsAppRoute: route, WAID: u.WAID, UserID: u.UserID,
					Category: u.Category, Value: u.Value, Detail: u.Detail, Timestamp: u.Timestamp.Time})
			}
		case "message_template_status_update":
			route.PhoneNumberID = ""
			p.Events = append(p.Events, &WhatsAppTemplateStatus{WhatsAppRoute: route, TemplateID: string(v.TemplateID),
				Name: v.TemplateName, Language: v.TemplateLanguage, Event: v.Event, Reason: v.Reason})
		default:
			route.PhoneNumberID = ""
			p.Events = append(p.Events, &WhatsAppAccountUpdate{WhatsAppRoute: route, Field: ch.Field, Event: v.Event, Value: ch.Value})
		}
	}
	return nil
}

func (p *Payload) whatsAppStatuses(route WhatsAppRoute, v *waValue) {
	for _, s := range v.Statuses {
		userID := s.RecipientUserID
		if c := v.contact(s.RecipientID, ""); userID == "" && (c.WAID == s.RecipientID || s.RecipientID == "") {
			userID = c.UserID
		}
		p.Events = append(p.Events, &WhatsAppStatus{WhatsAppRoute: route, ID: s.ID, RecipientID: s.RecipientID,
			RecipientUserID: userID, Status: s.Status, Timestamp: s.Timestamp.Time, Errors: s.Errors,
			BizOpaqueCallbackData: s.Callback})
	}
}

// waContact is an item of value.contacts[]: the customer's wa_id (absent
// for a customer with a username whose phone Meta withholds), user_id (the
// business-scoped user id, on every messages webhook), and profile name
// and username
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
type waContact struct {
	WAID    string `json:"wa_id"`
	UserID  string `json:"user_id"`
	Profile struct {
		Name     string `json:"name"`
		Username string `json:"username"`
	} `json:"profile"`
}

// contact is the item of value.contacts[] for a customer named by wa_id or
// user id; the only item when neither matches one; else none.
func (v *waValue) contact(waID, userID string) waContact {
	for _, c := range v.Contacts {
		if (waID != "" && c.WAID == waID) || (userID != "" && c.UserID == userID) {
			return c
		}
	}
	if len(v.Contacts) == 1 {
		return v.Contacts[0]
	}
	return waContact{}
}
