package model

// SendMessageInput is the body of POST /v1/messages (docs/api.md, Sending).
type SendMessageInput struct {
	ConversationID    *string            `json:"conversation_id"`
	Channel           *string            `json:"channel"`
	To                *string            `json:"to"`
	ContactID         *string            `json:"contact_id"`
	Text              *string            `json:"text"`
	HTML              *string            `json:"html"`
	Subject           *string            `json:"subject"`
	From              *string            `json:"from"`
	Cc                []string           `json:"cc"`
	Template          *TemplateInput     `json:"template"`
	WhatsappAccountID *string            `json:"whatsapp_account_id"`
	Attachments       []*AttachmentInput `json:"attachments"`
	ReplyAs           *string            `json:"reply_as"`
	// Tag "human_agent" marks an Instagram DM written by a person: it may
	// go out up to 7 days after the customer last wrote (docs/instagram.md).
	Tag *string `json:"tag"`
	// Rich outbound content (docs/whatsapp.md, docs/instagram.md).
	ReplyTo     *ReplyToInput     `json:"reply_to"`
	Reaction    *ReactionInput    `json:"reaction"`
	Location    *LocationInput    `json:"location"`
	Interactive *InteractiveInput `json:"interactive"`
	// Contacts are contact cards to send (WhatsApp), in the shape a
	// received card shows.
	Contacts []*ContactCardInput `json:"contacts"`
}

// The input forms of a contact card are the card's own types.
type (
	ContactCardInput = ContactCard
	ContactNameInput = ContactName
	CardPhoneInput   = CardPhone
	CardEmailInput   = CardEmail
	CardAddressInput = CardAddress
	CardOrgInput     = CardOrg
	CardURLInput     = CardURL
)

// ReplyToInput quotes one of the conversation's messages.
type ReplyToInput struct {
	MessageID *string `json:"message_id"`
}

// ReactionInput puts an emoji on a message ("" removes it).
type ReactionInput struct {
	MessageID *string `json:"message_id"`
	Emoji     *string `json:"emoji"`
}

// LocationInput is a place to send (WhatsApp).
type LocationInput struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
	Name      *string  `json:"name"`
	Address   *string  `json:"address"`
}

// InteractiveInput is a message with choices: WhatsApp reply buttons
// (type "buttons"), a list ("list"), a link button ("cta_url"); Instagram
// quick replies ("quick_replies"). The message's text is its body.
type InteractiveInput struct {
	Type         *string            `json:"type"`
	Header       *string            `json:"header"`
	Footer       *string            `json:"footer"`
	Buttons      []*ButtonInput     `json:"buttons"`
	Button       *string            `json:"button"`
	Sections     []*SectionInput    `json:"sections"`
	URL          *string            `json:"url"`
	DisplayText  *string            `json:"display_text"`
	QuickReplies []*QuickReplyInput `json:"quick_replies"`
	Elements     []*ElementInput    `json:"elements"`
}

// ElementInput is a card of an Instagram generic template: a title, an
// optional subtitle and image, the URL opened when it is tapped, buttons.
type ElementInput struct {
	Title    *string               `json:"title"`
	Subtitle *string               `json:"subtitle"`
	ImageURL *string               `json:"image_url"`
	URL      *string               `json:"url"`
	Buttons  []*ElementButtonInput `json:"buttons"`
}

// ElementButtonInput is a card's button: web_url opens URL, postback
// sends Payload back as the customer's postback.
type ElementButtonInput struct {
	Type    *string `json:"type"`
	Title   *string `json:"title"`
	URL     *string `json:"url"`
	Payload *string `json:"payload"`
}

// ButtonInput is a reply button: the id comes back in the customer's
// button_reply.
type ButtonInput struct {
	ID    *string `json:"id"`
	Title *string `json:"title"`
}

// SectionInput is a section of a list.
type SectionInput struct {
	Title *string     `json:"title"`
	Rows  []*RowInput `json:"rows"`
}

// RowInput is a row of a list.
type RowInput struct {
	ID          *string `json:"id"`
	Title       *string `json:"title"`
	Description *string `json:"description"`
}

// QuickReplyInput is an Instagram quick reply: the payload comes back in
// the customer's quick_reply.
type QuickReplyInput struct {
	Title   *string `json:"title"`
	Payload *string `json:"payload"`
}

// TemplateInput names a WhatsApp template and the values its components
// take: the body's {{1}}, {{2}} … (Parameters) or {{name}}
// (NamedParameters, an object of strings), the header's, the buttons',
// and an authentication template's one-time password (Code).
type TemplateInput struct {
	Name            *string                `json:"name"`
	Language        *string                `json:"language"`
	Parameters      []string               `json:"parameters"`
	NamedParameters JSON                   `json:"named_parameters"`
	Header          *TemplateHeaderInput   `json:"header"`
	Buttons         []*TemplateButtonInput `json:"buttons"`
	Code            *string                `json:"code"`
}

// TemplateHeaderInput is the header's parameter: its text's {{1}} (or
// {{name}}), its image, video or document, or its location.
type TemplateHeaderInput struct {
	Text     *string             `json:"text"`
	Image    *TemplateMediaInput `json:"image"`
	Video    *TemplateMediaInput `json:"video"`
	Document *TemplateMediaInput `json:"document"`
	Location *LocationInput      `json:"location"`
}

// TemplateMediaInput is a header's media: an uploaded file or an https
// link WhatsApp fetches.
type TemplateMediaInput struct {
	FileID   *string `json:"file_id"`
	Link     *string `json:"link"`
	Filename *string `json:"filename"`
}

// TemplateButtonInput is the parameter of the template's button at Index
// (0-based): a quick reply's payload, a URL button's suffix or a copy-code
// button's coupon code.
type TemplateButtonInput struct {
	Index      *int    `json:"index"`
	Payload    *string `json:"payload"`
	URLSuffix  *string `json:"url_suffix"`
	CouponCode *string `json:"coupon_code"`
}

// AttachmentInput is an uploaded file by id, or a file given inline.
type AttachmentInput struct {
	FileID        *string `json:"file_id"`
	Filename      *string `json:"filename"`
	ContentBase64 *string `json:"content_base64"`
	ContentType   *string `json:"content_type"`
}

// MarketingMessageInput is the body of POST /v1/whatsapp/marketing-messages.
type MarketingMessageInput struct {
	To                *string        `json:"to"`
	ContactID         *string        `json:"contact_id"`
	Template          *TemplateInput `json:"template"`
	WhatsappAccountID *string        `json:"whatsapp_account_id"`
}

// MessagingWindowInput is the query of GET /v1/messaging-window.
type MessagingWindowInput struct {
	ConversationID    *string `json:"conversation_id"`
	Channel           *string `json:"channel"`
	To                *string `json:"to"`
	WhatsappAccountID *string `json:"whatsapp_account_id"`
}

// MessagingWindow says whether free text can be sent now.
type MessagingWindow struct {
	Channel          string     `json:"channel"`
	Open             bool       `json:"open"`
	FreeTextUntil    *Timestamp `json:"free_text_until"`
	TemplateRequired bool       `json:"template_required"`
	LastInboundAt    *Timestamp `json:"last_inbound_at"`
}

// TemplateFilter narrows the template list.
type TemplateFilter struct {
	WhatsappAccountID *string `json:"whatsapp_account_id"`
	Status            *string `json:"status"`
	Category          *string `json:"category"`
}

// WhatsappTemplate is a message template of a WhatsApp number.
type WhatsappTemplate struct {
	ID                string `json:"id"`
	WhatsappAccountID string `json:"whatsapp_account_id"`
	Name              string `json:"name"`
	Language          string `json:"language"`
	Category          string `json:"category"`
	Status            string `json:"status"`
	Body              string `json:"body"`
	// ParameterFormat is POSITIONAL or NAMED; Components are Meta's
	// component definitions, null for a template known by its body only.
	ParameterFormat string `json:"parameter_format"`
	Components      JSON   `json:"components"`
}

// TemplatePage lists templates; it is never cut into pages.
type TemplatePage struct {
	Items      []*WhatsappTemplate `json:"items"`
	HasMore    bool                `json:"has_more"`
	NextCursor *string             `json:"next_cursor"`
}

// EmailSender is an address a key may send email from.
type EmailSender struct {
	ID        string `json:"id"`
	Address   string `json:"address"`
	Domain    string `json:"domain"`
	Verified  bool   `json:"verified"`
	WebsiteID string `json:"website_id"`
	// ReturnPathDomain is the domain of its envelope sender
	// (bounces+{msg_id}@…).
	ReturnPathDomain string `json:"return_path_domain"`
	// DNSRecords are the records its domain publishes.
	DNSRecords []*DNSRecord `json:"dns_records"`
}

// DNSRecord is a DNS record a sending domain publishes: purpose dkim,
// return_path, spf or dmarc.
type DNSRecord struct {
	Purpose string `json:"purpose"`
	Type    string `json:"type"`
	Name    string `json:"name"`
	Value   string `json:"value"`
}

// EmailSenderPage lists email senders; it is never cut into pages.
type EmailSenderPage struct {
	Items      []*EmailSender `json:"items"`
	HasMore    bool           `json:"has_more"`
	NextCursor *string        `json:"next_cursor"`
}

// File is an uploaded file that one message may attach.
type File struct {
	ID          string    `json:"id"`
	Object      string    `json:"object"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	Size        int       `json:"size"`
	CreatedAt   Timestamp `json:"created_at"`
}

// UploadFileInput is a file to store: the JSON form of POST /v1/files.
type UploadFileInput struct {
	Filename      *string `json:"filename"`
	ContentBase64 *string `json:"content_base64"`
	ContentType   *string `json:"content_type"`

	// Content holds the bytes of a multipart upload, which REST reads
	// directly so a 10 MB file is not base64-encoded only to be decoded.
	Content []byte `json:"-"`
}
