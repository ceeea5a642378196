package model

// InstagramAccount is a connected Instagram professional account.
type InstagramAccount struct {
	ID        string `json:"id"`
	WebsiteID string `json:"website_id"`
	Username  string `json:"username"`
	Status    string `json:"status"`
	// Subscription is how subscribing the account's webhooks went at its
	// last connect; nil when msgsvc never subscribed it.
	Subscription *AccountCheck `json:"subscription"`
}
