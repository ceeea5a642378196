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

// WhatsAppMessage is an inbound message (value.messages[]).
type WhatsAppMessage struct {
	WhatsAppRoute
	// From is the customer's wa_id (digits), "" when Meta withholds the
	// phone of a customer with a username; UserID the customer's
	// business-scoped user id (from_user_id, or value.contacts[].user_id);
	// ProfileName and Username those of value.contacts[] for the customer.
	From        string
	UserID      string
	ProfileName string
	Username    string
	// ID is the wamid, the dedupe key.
	ID        string
	Timestamp time.Time
	// Type is WhatsApp's: text, image, video, audio, document, sticker,
	// location, contacts, interactive, button, reaction, order, system,
	// unsupported.
	Type string
	// Text is the body of a text, the caption of a media, the text of a
	// button, the title of an interactive reply, the body of a system
	// message.
	Text string
	// Media is set for image, video, audio, document and sticker.
	Media *WhatsAppMedia
	// ReplyID is the id of an interactive reply or the payload of a button.
	ReplyID  string
	Context  *WhatsAppContext
	Reaction *WhatsAppReaction
	Location *WhatsAppLocation
	Errors   []WhatsAppError
	// Interactive is the choice of an interactive, button or Flow reply.
	Interactive *WhatsAppChoice
	// Contacts are the shared cards, in Meta's shape (names, phones,
	// emails, addresses, org, urls).
	Contacts json.RawMessage
	Order    *WhatsAppOrder
	System   *WhatsAppSystem
	Referral *WhatsAppReferral
	// Unsupported is the kind of an unsupported message when Meta names it.
	Unsupported string
	// Raw is the message object as Meta sent it (contacts, order, ...).
	Raw json.RawMessage
}

// WhatsAppMedia is the media object of a message; ID is for DownloadMedia,
// SHA256 the base64 digest to check the bytes against.
type WhatsAppMedia struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
	Voice    bool   `json:"voice"`
	Animated bool   `json:"animated"`
}

// WhatsAppContext is the message a customer replied to (ID, a wamid of ours
// or theirs) or a forward.
type WhatsAppContext struct {
	From                string `json:"from"`
	ID                  string `json:"id"`
	Forwarded           bool   `json:"forwarded"`
	FrequentlyForwarded bool   `json:"frequently_forwarded"`
	ReferredProduct     *struct {
		CatalogID         string `json:"catalog_id"`
		ProductRetailerID string `json:"product_retailer_id"`
	} `json:"referred_product"`
}

// WhatsAppReaction is an emoji on a message (empty Emoji: removed).
type WhatsAppReaction struct {
	MessageID string `json:"message_id"`
	Emoji     string `json:"emoji"`
}

// WhatsAppLocation is a shared location.
type WhatsAppLocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name"`
	Address   string  `json:"address"`
	URL       string  `json:"url"`
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

type waMessage struct {
	From       string `json:"from"`
	FromUserID string `json:"from_user_id"`
	ID         string `json:"id"`
	Timestamp  Time   `json:"timestamp"`
	Type       string `json:"type"`
	Text       *struct {
		Body string `json:"body"`
	} `json:"text"`
	Image    *WhatsAppMedia `json:"image"`
	Video    *WhatsAppMedia `json:"video"`
	Audio    *WhatsAppMedia `json:"audio"`
	Document *WhatsAppMedia `json:"document"`
	Sticker  *WhatsAppMedia `json:"sticker"`
	Button   *struct {
		Text    string `json:"text"`
		Payload string `json:"payload"`
	} `json:"button"`
	Interactive *struct {
		Type        string `json:"type"`
		ButtonReply *reply `json:"button_reply"`
		ListReply   *reply `json:"list_reply"`
		NFMReply    *struct {
			Name         string `json:"name"`
			Body         string `json:"body"`
			ResponseJSON string `json:"response_json"`
		} `json:"nfm_reply"`
	} `json:"interactive"`
	System      *WhatsAppSystem   `json:"system"`
	Contacts    json.RawMessage   `json:"contacts"`
	Order       *WhatsAppOrder    `json:"order"`
	Referral    *WhatsAppReferral `json:"referral"`
	Unsupported *struct {
		Type string `json:"type"`
	} `json:"unsupported"`
	Context  *WhatsAppContext  `json:"context"`
	Reaction *WhatsAppReaction `json:"reaction"`
	Location *WhatsAppLocation `json:"location"`
	Errors   []WhatsAppError   `json:"errors"`
}

type reply struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

func (p *Payload) whatsAppMessages(route WhatsAppRoute, v *waValue) error {
	for _, raw := range v.Messages {
		var m waMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		ev := &WhatsAppMessage{WhatsAppRoute: route, From: m.From, UserID: m.FromUserID, ID: m.ID, Timestamp: m.Timestamp.Time,
			Type: m.Type, Context: m.Context, Reaction: m.Reaction, Location: m.Location, Errors: m.Errors, Raw: raw}
		c := v.contact(m.From, m.FromUserID)
		ev.ProfileName, ev.Username = c.Profile.Name, c.Profile.Username
		if ev.UserID == "" {
			ev.UserID = c.UserID
		}
		if ev.From == "" && c.UserID == ev.UserID {
			ev.From = c.WAID
		}
		ev.Media = m.media()
		ev.Text, ev.ReplyID = m.text()
		ev.Interactive = m.choice()
		ev.Contacts, ev.Order, ev.System, ev.Referral = m.Contacts, m.Order, m.System, m.Referral
		if m.Unsupported != nil {
			ev.Unsupported = m.Unsupported.Type
		}
		p.Events = append(p.Events, ev)
	}
	return nil
}

func (m *waMessage) media() *WhatsAppMedia {
	switch m.Type {
	case "image":
		return m.Image
	case "video":
		return m.Video
	case "audio":
		return m.Audio
	case "document":
		return m.Document
	case "sticker":
		return m.Sticker
	}
	return nil
}

// text is what the message says in words, and the id of the choice made.
func (m *waMessage) text() (string, string) {
	switch {
	case m.Text != nil:
		return m.Text.Body, ""
	case m.Button != nil:
		return m.Button.Text, m.Button.Payload
	case m.Interactive != nil && m.Interactive.ButtonReply != nil:
		return m.Interactive.ButtonReply.Title, m.Interactive.ButtonReply.ID
	case m.Interactive != nil && m.Interactive.ListReply != nil:
		return m.Interactive.ListReply.Title, m.Interactive.ListReply.ID
	case m.Interactive != nil && m.Interactive.NFMReply != nil:
		return m.Interactive.NFMReply.Body, ""
	case m.Order != nil:
		return m.Order.Text, ""
	case m.System != nil:
		return m.System.Body, ""
	}
	if md := m.media(); md != nil {
		return md.Caption, ""
	}
	return "", ""
}
