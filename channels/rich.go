package channels

// Rich is what an outbound message carries besides text and files, as the
// send rules checked it (graph/send/rich.go).
type Rich struct {
	// ReplyTo is the provider's id of the message quoted (WhatsApp
	// context.message_id, Instagram reply_to.mid).
	ReplyTo     string
	Reaction    *Reaction
	Location    *Location
	Interactive *Interactive
	// Contacts are contact cards, each an object of the fields of
	// WhatsApp's contact object (name, phones, emails, addresses, org,
	// urls, birthday), empty fields left out.
	Contacts []map[string]any
}

// Reaction is an emoji on the message ProviderID names; "" removes it.
type Reaction struct {
	ProviderID string
	Emoji      string
}

// Location is a place.
type Location struct {
	Latitude, Longitude float64
	Name, Address       string
}

// Interactive is a message with choices, its body the message's text:
// Type buttons (Choices), list (Button, Sections), cta_url (URL,
// DisplayText) on WhatsApp; quick_replies (Choices: ID the payload) on
// Instagram.
type Interactive struct {
	Type        string
	Header      string
	Footer      string
	Choices     []Choice
	Button      string
	Sections    []Section
	URL         string
	DisplayText string
	// Elements are the cards of an Instagram generic template (Type
	// generic).
	Elements []Element
}

// Element is a card of a generic template: URL opens when the card is
// tapped; each button is a web_url (URL) or a postback (Payload).
type Element struct {
	Title, Subtitle, ImageURL, URL string
	Buttons                        []ElementButton
}

// ElementButton is a button of a card.
type ElementButton struct {
	Type, Title, URL, Payload string
}

// Choice is a button, a row or a quick reply.
type Choice struct {
	ID, Title, Description string
}

// Section is a titled group of a list's rows.
type Section struct {
	Title string
	Rows  []Choice
}
