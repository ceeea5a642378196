package meta

import (
	"encoding/json"
	"time"
)

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
