package model

import "github.com/99designs/gqlgen/graphql"

// Conversation is one thread with a customer on one channel account.
type Conversation struct {
	ID                 string              `json:"id"`
	Object             string              `json:"object"`
	Channel            string              `json:"channel"`
	WebsiteID          string              `json:"website_id"`
	Status             string              `json:"status"`
	Mode               string              `json:"mode"`
	Subject            *string             `json:"subject"`
	Contact            ConversationContact `json:"contact"`
	AssignedAgentID    *string             `json:"assigned_agent_id"`
	Tags               []string            `json:"tags"`
	IntegrationReplies bool                `json:"integration_replies"`
	MessageCount       int                 `json:"message_count"`
	CreatedAt          Timestamp           `json:"created_at"`
	LastMessageAt      Timestamp           `json:"last_message_at"`

	ContactID *string `json:"-"`
	AccountID string  `json:"-"`
	Livemode  bool    `json:"-"`
	IsComment bool    `json:"-"`
}

// ConversationContact is the customer summary shown on a conversation.
type ConversationContact struct {
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	Phone      *string `json:"phone"`
	ExternalID *string `json:"external_id"`
}

// Message is one inbound or outbound message of a conversation.
type Message struct {
	ID             string        `json:"id"`
	Object         string        `json:"object"`
	ConversationID string        `json:"conversation_id"`
	Channel        string        `json:"channel"`
	Direction      string        `json:"direction"`
	Sender         MessageSender `json:"sender"`
	Type           string        `json:"type"`
	Text           *string       `json:"text"`
	HTML           *string       `json:"html"`
	HTMLRaw        *string       `json:"html_raw"`
	Email          *EmailHeaders `json:"email,omitempty"`
	Attachments    []*Attachment `json:"attachments"`
	Status         string        `json:"status"`
	Delivery       *Delivery     `json:"delivery"`
	CreatedAt      Timestamp     `json:"created_at"`
	// Deleted is true on a message the customer unsent (Instagram); the
	// field is left out otherwise.
	Deleted bool `json:"deleted,omitempty"`
	// Rich is the provider's id, the quoted message, attribution and the
	// object of the message's type (location, reaction, ...).
	Rich

	Livemode bool `json:"-"`
	// AutoSubmitted marks inbound mail with an Auto-Submitted header other
	// than "no": it is stored but the AI never answers it.
	AutoSubmitted bool `json:"-"`
}

// MessageSender says who wrote a message.
type MessageSender struct {
	Type string  `json:"type"`
	Name *string `json:"name"`
}

// EmailHeaders are the addressing headers of an email message.
type EmailHeaders struct {
	From       string   `json:"from"`
	To         []string `json:"to"`
	Cc         []string `json:"cc"`
	InReplyTo  *string  `json:"in_reply_to"`
	References []string `json:"references"`
	// Warnings say what was repaired to read or show an inbound mail
	// (empty when nothing was, and on outbound mail).
	Warnings []EmailWarning `json:"warnings"`
}

// EmailWarning is one repair: a stable code and a sentence for people.
type EmailWarning struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Attachment is a file on a message, reachable through a signed link.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	URL         string `json:"url"`
	// Provider media (WhatsApp, Instagram) keeps what the provider said of
	// it, also when the download failed (Status "failed", Error why), so it
	// can be fetched again (POST /v1/files/{id}/refetch).
	ProviderMediaID string `json:"provider_media_id,omitempty"`
	MimeType        string `json:"mime_type,omitempty"`
	SHA256          string `json:"sha256,omitempty"`
	Caption         string `json:"caption,omitempty"`
	// Status is "stored" or "failed" on provider media, "" otherwise.
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Delivery is the provider-side state of an outbound message.
type Delivery struct {
	ProviderMessageID *string        `json:"provider_message_id"`
	Error             *DeliveryError `json:"error"`
	SentAt            *Timestamp     `json:"sent_at"`
	DeliveredAt       *Timestamp     `json:"delivered_at"`
	ReadAt            *Timestamp     `json:"read_at"`
	FailedAt          *Timestamp     `json:"failed_at"`
}

// DeliveryError says why a provider refused or failed a message.
type DeliveryError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Contact is a customer of a workspace across channels.
type Contact struct {
	ID              string  `json:"id"`
	Object          string  `json:"object"`
	Name            string  `json:"name"`
	Email           *string `json:"email"`
	Phone           *string `json:"phone"`
	InstagramUserID *string `json:"instagram_user_id"`
	// WhatsappUserID is the WhatsApp business-scoped user id.
	WhatsappUserID   *string          `json:"whatsapp_user_id"`
	OptOuts          OptOuts          `json:"opt_outs"`
	MarketingOptOuts MarketingOptOuts `json:"marketing_opt_outs"`
	EmailSuppressed  *JSON            `json:"email_suppressed"`
	FirstSeenChannel *string          `json:"first_seen_channel"`
	Source           string           `json:"source"`
	CreatedAt        Timestamp        `json:"created_at"`
	LastSeenAt       *Timestamp       `json:"last_seen_at"`

	ExternalID *string `json:"-"`
	Livemode   bool    `json:"-"`
}

// OptOuts are a contact's per-channel opt-outs.
type OptOuts struct {
	Whatsapp  bool `json:"whatsapp"`
	Email     bool `json:"email"`
	Instagram bool `json:"instagram"`
}

// MarketingOptOuts are the channels whose marketing messages a contact
// stopped (WhatsApp only): other messages still go out.
type MarketingOptOuts struct {
	Whatsapp bool `json:"whatsapp"`
}

// ContactUpdate is a contact after a PATCH and the fields it changed.
type ContactUpdate struct {
	Contact *Contact `json:"contact"`
	Changed []string `json:"changed"`
}

// Deleted answers a DELETE.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// Channels lists the websites and channel accounts a key can use.
type Channels struct {
	Websites  []*Website          `json:"websites"`
	Whatsapp  []*WhatsappNumber   `json:"whatsapp"`
	Instagram []*InstagramAccount `json:"instagram"`
	Email     []*EmailAddress     `json:"email"`
}

// EmailAddress is an inbox address of the email channel.
type EmailAddress struct {
	ID               string `json:"id"`
	WebsiteID        string `json:"website_id"`
	Address          string `json:"address"`
	ForwardingActive bool   `json:"forwarding_active"`
}

// Usage is this month's API message quota.
type Usage struct {
	Period        string    `json:"period"`
	MessagesUsed  int       `json:"messages_used"`
	MessagesLimit int       `json:"messages_limit"`
	ResetsAt      Timestamp `json:"resets_at"`
}

// Event is the envelope of something that happened, as webhooks carry it.
type Event struct {
	ID        string      `json:"id"`
	Object    EventObject `json:"object"`
	Type      string      `json:"type"`
	CreatedAt Timestamp   `json:"created_at"`
	Channel   *string     `json:"channel"`
	WebsiteID *string     `json:"website_id"`
	Livemode  bool        `json:"livemode"`
	Data      JSON        `json:"data"`
}

// EventObject is an envelope's "object", always "event" (whatever was
// stored), as in Stripe's envelope, so that Stripe's SDK parsers
// (stripe-go's webhook.ConstructEvent) read msgsvc events.
type EventObject struct{}

// MarshalJSON writes "event".
func (EventObject) MarshalJSON() ([]byte, error) { return []byte(`"event"`), nil }

// UnmarshalJSON accepts whatever was stored; the object is always "event".
func (*EventObject) UnmarshalJSON([]byte) error { return nil }

// InboundResult answers a simulated inbound message.
type InboundResult struct {
	Livemode     bool          `json:"livemode"`
	Conversation *Conversation `json:"conversation"`
	Message      *Message      `json:"message"`
}

// ConversationPage is one page of conversations.
type ConversationPage struct {
	Items      []*Conversation `json:"items"`
	HasMore    bool            `json:"has_more"`
	NextCursor *string         `json:"next_cursor"`
}

// MessagePage is one page of messages.
type MessagePage struct {
	Items      []*Message `json:"items"`
	HasMore    bool       `json:"has_more"`
	NextCursor *string    `json:"next_cursor"`
}

// ContactPage is one page of contacts.
type ContactPage struct {
	Items      []*Contact `json:"items"`
	HasMore    bool       `json:"has_more"`
	NextCursor *string    `json:"next_cursor"`
}

// ConversationFilter narrows a conversation list.
type ConversationFilter struct {
	Channel      *string `json:"channel"`
	Status       *string `json:"status"`
	WebsiteID    *string `json:"website_id"`
	UpdatedSince *string `json:"updated_since"`
}

// ContactFilter narrows a contact list.
type ContactFilter struct {
	Email        *string `json:"email"`
	Phone        *string `json:"phone"`
	UpdatedSince *string `json:"updated_since"`
}

// UpdateConversationInput is the body of PATCH /v1/conversations/{id}.
type UpdateConversationInput struct {
	Status          *string                    `json:"status"`
	Mode            *string                    `json:"mode"`
	AssignedAgentID graphql.Omittable[*string] `json:"assigned_agent_id"`
	Tags            []string                   `json:"tags"`
}

// CreateContactInput is the body of POST /v1/contacts.
type CreateContactInput struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Phone *string `json:"phone"`
}

// UpdateContactInput is the body of PATCH /v1/contacts/{id}.
type UpdateContactInput struct {
	Name            *string `json:"name"`
	Email           *string `json:"email"`
	Phone           *string `json:"phone"`
	WhatsappOptOut  *bool   `json:"whatsapp_opt_out"`
	EmailOptOut     *bool   `json:"email_opt_out"`
	InstagramOptOut *bool   `json:"instagram_opt_out"`
}

// SimulateInboundInput is the body of POST /v1/test/inbound.
type SimulateInboundInput struct {
	Channel   string  `json:"channel"`
	From      string  `json:"from"`
	Name      *string `json:"name"`
	Text      *string `json:"text"`
	Comment   *bool   `json:"comment"`
	AccountID *string `json:"account_id"`
	Subject   *string `json:"subject"`
}
