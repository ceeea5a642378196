package model

// InstagramAccount is a connected Instagram professional account.
type InstagramAccount struct {
	ID        string `json:"id"`
	WebsiteID string `json:"website_id"`
	Username  string `json:"username"`
	Status    string `json:"status"`
	// WebhookSubscription is the outcome of subscribing the account's
	// webhooks at connect; nil when msgsvc never subscribed it.
	WebhookSubscription *WebhookSubscription `json:"webhook_subscription"`
}

// WebhookSubscription is the outcome of an account's subscribed_apps call.
type WebhookSubscription struct {
	Status    string    `json:"status"`
	Fields    []string  `json:"fields"`
	Error     *string   `json:"error"`
	UpdatedAt Timestamp `json:"updated_at"`
}
