package meta

import (
	"encoding/json"
	"strings"
)

// WhatsAppChoice is what a customer chose: Kind button_reply, list_reply
// (ID, Title, Description), button (a template's quick reply: Payload,
// Title) or flow_reply (Name, Body, Response: the Flow's response_json).
type WhatsAppChoice struct {
	Kind        string
	ID          string
	Payload     string
	Title       string
	Description string
	Name        string
	Response    string
}

// WhatsAppOrder is a cart sent from a catalog.
type WhatsAppOrder struct {
	CatalogID    string `json:"catalog_id"`
	Text         string `json:"text"`
	ProductItems []struct {
		ProductRetailerID string      `json:"product_retailer_id"`
		Quantity          json.Number `json:"quantity"`
		ItemPrice         json.Number `json:"item_price"`
		Currency          string      `json:"currency"`
	} `json:"product_items"`
}

// WhatsAppSystem is a system message: Type user_changed_number (NewWAID
// the new number), customer_identity_changed, ...
type WhatsAppSystem struct {
	Body     string `json:"body"`
	Type     string `json:"type"`
	NewWAID  string `json:"new_wa_id"`
	WAID     string `json:"wa_id"`
	Identity string `json:"identity"`
	Customer string `json:"customer"`
	// UserID is the customer's new business-scoped user id
	// (user_changed_user_id, and user_changed_number: a new number gets a
	// new one).
	UserID string `json:"user_id"`
}

// WhatsAppReferral is the Click-to-WhatsApp ad a message came from.
type WhatsAppReferral struct {
	SourceURL      string `json:"source_url"`
	SourceID       string `json:"source_id"`
	SourceType     string `json:"source_type"`
	Body           string `json:"body"`
	Headline       string `json:"headline"`
	MediaType      string `json:"media_type"`
	ImageURL       string `json:"image_url"`
	VideoURL       string `json:"video_url"`
	ThumbnailURL   string `json:"thumbnail_url"`
	CtwaClid       string `json:"ctwa_clid"`
	WelcomeMessage *struct {
		Text string `json:"text"`
	} `json:"welcome_message"`
}

// WhatsAppValueErrors are the errors[] of a webhook value itself (not of a
// message or status): a problem of the account or the app Meta reports,
// such as 130429 (rate limit hit). They are logged.
type WhatsAppValueErrors struct {
	WhatsAppRoute
	Field  string
	Errors []WhatsAppError
}

// Reasons is the errors as "code: title" texts.
func (e *WhatsAppValueErrors) Reasons() string {
	out := make([]string, len(e.Errors))
	for i, x := range e.Errors {
		out[i] = x.Reason()
		if x.Details != "" {
			out[i] += " (" + x.Details + ")"
		}
	}
	return strings.Join(out, "; ")
}

// choice is the interactive, button or Flow reply of a message, if any.
func (m *waMessage) choice() *WhatsAppChoice {
	switch {
	case m.Button != nil:
		return &WhatsAppChoice{Kind: "button", Payload: m.Button.Payload, Title: m.Button.Text}
	case m.Interactive == nil:
		return nil
	case m.Interactive.ButtonReply != nil:
		r := m.Interactive.ButtonReply
		return &WhatsAppChoice{Kind: "button_reply", ID: r.ID, Title: r.Title, Description: r.Description}
	case m.Interactive.ListReply != nil:
		r := m.Interactive.ListReply
		return &WhatsAppChoice{Kind: "list_reply", ID: r.ID, Title: r.Title, Description: r.Description}
	case m.Interactive.NFMReply != nil:
		r := m.Interactive.NFMReply
		return &WhatsAppChoice{Kind: "flow_reply", Name: r.Name, Title: r.Body, Response: r.ResponseJSON}
	}
	return &WhatsAppChoice{Kind: m.Interactive.Type}
}
