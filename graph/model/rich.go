package model

// Rich is what a message carries besides its text, in fields of its own:
// the provider's id, the message it quotes, ad attribution, and, for the
// kinds that are not plain text, one object named by the message's type
// (docs/whatsapp.md, docs/instagram.md). It is stored as the message's
// content column and shown flat on the message.
type Rich struct {
	// ProviderMessageID is the wamid, the Instagram mid or an email's
	// Message-ID (an outbound message's comes from its delivery).
	ProviderMessageID *string `json:"provider_message_id"`
	// ReplyTo is the message quoted (WhatsApp context.id, Instagram
	// reply_to.mid, an email's In-Reply-To).
	ReplyTo *ReplyTo `json:"reply_to"`
	// Forwarded is WhatsApp's context.forwarded or frequently_forwarded.
	Forwarded bool `json:"forwarded"`
	// Referral is the ad or link the customer came from.
	Referral *Referral `json:"referral"`

	Location    *Location      `json:"location,omitempty"`
	Contacts    []*ContactCard `json:"contacts,omitempty"`
	Interactive *Interactive   `json:"interactive,omitempty"`
	Reaction    *Reaction      `json:"reaction,omitempty"`
	Order       *Order         `json:"order,omitempty"`
	Story       *Story         `json:"story,omitempty"`
	Share       *Share         `json:"share,omitempty"`
	Unsupported *Unsupported   `json:"unsupported,omitempty"`
	System      *System        `json:"system,omitempty"`
	Comment     *Comment       `json:"comment,omitempty"`
}

// ReplyTo names a quoted message: MessageID is ours when msgsvc knows the
// provider's id, nil otherwise.
type ReplyTo struct {
	MessageID         *string `json:"message_id"`
	ProviderMessageID string  `json:"provider_message_id"`
	// ReferredProduct is the catalog product a WhatsApp customer asked
	// about ("Message business" on a product).
	ReferredProduct *ReferredProduct `json:"referred_product,omitempty"`
}

// ReferredProduct is a product of a catalog.
type ReferredProduct struct {
	CatalogID         string `json:"catalog_id"`
	ProductRetailerID string `json:"product_retailer_id"`
}

// Referral is ad or link attribution: a Click-to-WhatsApp ad, an Instagram
// ad or ig.me link.
type Referral struct {
	SourceType   string `json:"source_type,omitempty"`
	SourceID     string `json:"source_id,omitempty"`
	SourceURL    string `json:"source_url,omitempty"`
	Headline     string `json:"headline,omitempty"`
	Body         string `json:"body,omitempty"`
	MediaType    string `json:"media_type,omitempty"`
	ImageURL     string `json:"image_url,omitempty"`
	VideoURL     string `json:"video_url,omitempty"`
	ThumbnailURL string `json:"thumbnail_url,omitempty"`
	CtwaClid     string `json:"ctwa_clid,omitempty"`
	AdID         string `json:"ad_id,omitempty"`
	AdTitle      string `json:"ad_title,omitempty"`
	Ref          string `json:"ref,omitempty"`
	// WelcomeMessage is the ad's greeting text.
	WelcomeMessage string `json:"welcome_message,omitempty"`
}

// Location is a shared place.
type Location struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name,omitempty"`
	Address   string  `json:"address,omitempty"`
	URL       string  `json:"url,omitempty"`
}

// ContactCard is one shared contact.
type ContactCard struct {
	Name      ContactName    `json:"name"`
	Phones    []*CardPhone   `json:"phones"`
	Emails    []*CardEmail   `json:"emails"`
	Addresses []*CardAddress `json:"addresses"`
	Org       *CardOrg       `json:"org,omitempty"`
	Urls      []*CardURL     `json:"urls"`
	Birthday  string         `json:"birthday,omitempty"`
}

// ContactName is a card's name.
type ContactName struct {
	FormattedName string `json:"formatted_name"`
	FirstName     string `json:"first_name,omitempty"`
	LastName      string `json:"last_name,omitempty"`
	MiddleName    string `json:"middle_name,omitempty"`
	Suffix        string `json:"suffix,omitempty"`
	Prefix        string `json:"prefix,omitempty"`
}

// CardPhone is a phone of a card; WaID is set when it is on WhatsApp.
type CardPhone struct {
	Phone string `json:"phone"`
	WaID  string `json:"wa_id,omitempty"`
	Type  string `json:"type,omitempty"`
}

// CardEmail is an email address of a card.
type CardEmail struct {
	Email string `json:"email"`
	Type  string `json:"type,omitempty"`
}

// CardAddress is a postal address of a card.
type CardAddress struct {
	Street      string `json:"street,omitempty"`
	City        string `json:"city,omitempty"`
	State       string `json:"state,omitempty"`
	Zip         string `json:"zip,omitempty"`
	Country     string `json:"country,omitempty"`
	CountryCode string `json:"country_code,omitempty"`
	Type        string `json:"type,omitempty"`
}

// CardOrg is a card's organisation.
type CardOrg struct {
	Company    string `json:"company,omitempty"`
	Department string `json:"department,omitempty"`
	Title      string `json:"title,omitempty"`
}

// CardURL is a web address of a card.
type CardURL struct {
	URL  string `json:"url"`
	Type string `json:"type,omitempty"`
}

// Interactive is a choice the customer made: Kind button_reply,
// list_reply, button (a template's quick reply), flow_reply, quick_reply
// or postback.
type Interactive struct {
	Kind string `json:"kind"`
	// ID is the reply's id (button_reply, list_reply); Payload the
	// payload of a template button, a quick reply or a postback.
	ID          string `json:"id,omitempty"`
	Payload     string `json:"payload,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Name and Response are a Flow's name and its response_json.
	Name     string `json:"name,omitempty"`
	Response string `json:"response,omitempty"`
}

// Reaction is an emoji on a message; Emoji is "" when removed.
type Reaction struct {
	Emoji             string  `json:"emoji"`
	MessageID         *string `json:"message_id"`
	ProviderMessageID string  `json:"provider_message_id"`
}

// Order is a cart sent from a catalog.
type Order struct {
	CatalogID string       `json:"catalog_id"`
	Text      string       `json:"text,omitempty"`
	Items     []*OrderItem `json:"items"`
}

// OrderItem is one product of an order.
type OrderItem struct {
	ProductID string  `json:"product_id"`
	Quantity  int     `json:"quantity"`
	Price     float64 `json:"price"`
	Currency  string  `json:"currency"`
}

// Story is an Instagram story: Kind reply (the customer answered it) or
// mention (the customer mentioned the account in theirs).
type Story struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Share is shared Instagram content (a post, a reel).
type Share struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	ID    string `json:"id,omitempty"`
}

// Unsupported is a message the provider does not pass on, or a kind
// msgsvc does not model.
type Unsupported struct {
	Code    string `json:"code,omitempty"`
	Title   string `json:"title,omitempty"`
	Details string `json:"details,omitempty"`
}

// System is a notice of the provider: Kind user_changed_number (NewWaID
// the customer's new number), request_welcome (a first open of the chat),
// referral (an ad or link opened in an existing thread), ...
type System struct {
	Kind    string `json:"kind"`
	Body    string `json:"body,omitempty"`
	NewWaID string `json:"new_wa_id,omitempty"`
}

// Comment is the Instagram comment a comment message is.
type Comment struct {
	ID       string `json:"id"`
	MediaID  string `json:"media_id"`
	ParentID string `json:"parent_id,omitempty"`
	AdID     string `json:"ad_id,omitempty"`
	AdTitle  string `json:"ad_title,omitempty"`
}
