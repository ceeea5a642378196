package model

// Website is a site with a chat widget; it also groups channel accounts.
type Website struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Domains []string `json:"domains"`
}

// WhatsappNumber is a connected WhatsApp Business number.
type WhatsappNumber struct {
	ID                string `json:"id"`
	WebsiteID         string `json:"website_id"`
	PhoneNumber       string `json:"phone_number"`
	Name              string `json:"name"`
	Status            string `json:"status"`
	MarketingMessages string `json:"marketing_messages"`
	// Subscription is how the app's webhook subscription to the number's
	// WABA went at its last connect; TemplateSync how the last template
	// sync went (nil: not run yet).
	Subscription *AccountCheck `json:"subscription"`
	TemplateSync *AccountCheck `json:"template_sync"`
}

// AccountCheck is how the last run of a provider check of an account went:
// status ok or failed, the error saying why, and when.
type AccountCheck struct {
	Status string    `json:"status"`
	Error  *string   `json:"error"`
	At     Timestamp `json:"at"`
}
