package model

// WebhookEndpoint is a customer URL that receives signed events.
type WebhookEndpoint struct {
	ID           string   `json:"id"`
	Object       string   `json:"object"`
	URL          string   `json:"url"`
	Description  string   `json:"description"`
	Channels     []string `json:"channels"`
	Events       []string `json:"events"`
	WebsiteIDs   []string `json:"website_ids"`
	MetadataOnly bool     `json:"metadata_only"`
	TestEvents   bool     `json:"test_events"`
	// Status is unverified, active or disabled.
	Status string `json:"status"`
	// DisabledReason is manual, gone (410) or failing (3 days), while disabled.
	DisabledReason *string    `json:"disabled_reason"`
	VerifiedAt     *Timestamp `json:"verified_at"`
	CreatedAt      Timestamp  `json:"created_at"`
	// Secret is shown once, in the create answer.
	Secret *string `json:"secret,omitempty"`
	// Verification is the outcome of the handshake this request ran.
	Verification *WebhookVerification `json:"verification,omitempty"`
}

// WebhookVerification is the outcome of an endpoint.verification handshake.
type WebhookVerification struct {
	Verified bool    `json:"verified"`
	Reason   *string `json:"reason"`
}

// WebhookEndpointList is every endpoint of the workspace and the addresses
// webhooks come from; it has no cursor.
type WebhookEndpointList struct {
	Items     []*WebhookEndpoint `json:"items"`
	EgressIPs []string           `json:"egress_ips"`
}

// CreateWebhookEndpointInput is the body of POST /v1/webhook-endpoints; the
// camelCase names are the spec's.
type CreateWebhookEndpointInput struct {
	URL          string   `json:"url"`
	Description  *string  `json:"description"`
	Channels     []string `json:"channels"`
	Events       []string `json:"events"`
	WebsiteIDs   []string `json:"website_ids"`
	MetadataOnly *bool    `json:"metadataOnly"`
	TestEvents   *bool    `json:"testEvents"`
	// Secret is the caller's own signing secret (whsec_…), so that its
	// receiver can verify the handshake that runs during the create call.
	Secret *string `json:"secret"`
}

// UpdateWebhookEndpointInput is the body of PATCH /v1/webhook-endpoints/{id};
// a nil field is left as it is.
type UpdateWebhookEndpointInput struct {
	URL          *string  `json:"url"`
	Description  *string  `json:"description"`
	Channels     []string `json:"channels"`
	Events       []string `json:"events"`
	WebsiteIDs   []string `json:"website_ids"`
	MetadataOnly *bool    `json:"metadataOnly"`
	TestEvents   *bool    `json:"testEvents"`
	Enabled      *bool    `json:"enabled"`
}

// RollWebhookSecretInput is the body of POST .../roll-secret.
type RollWebhookSecretInput struct {
	GraceHours *int `json:"grace_hours"`
}

// RolledWebhookSecret answers a roll: the new secret, shown once.
type RolledWebhookSecret struct {
	ID         string `json:"id"`
	GraceHours int    `json:"grace_hours"`
	Secret     string `json:"secret"`
}

// WebhookDelivery is one event on its way to one endpoint.
type WebhookDelivery struct {
	ID         string `json:"id"`
	Object     string `json:"object"`
	EndpointID string `json:"endpoint_id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	// Status is pending, retrying, succeeded or failed.
	Status             string     `json:"status"`
	Attempts           int        `json:"attempts"`
	LastResponseStatus *int       `json:"last_response_status"`
	LastError          *string    `json:"last_error"`
	NextAttemptAt      *Timestamp `json:"next_attempt_at"`
	ReplayOf           *string    `json:"replay_of"`
	CreatedAt          Timestamp  `json:"created_at"`
}

// WebhookDeliveryPage is one page of deliveries.
type WebhookDeliveryPage struct {
	Items      []*WebhookDelivery `json:"items"`
	HasMore    bool               `json:"has_more"`
	NextCursor *string            `json:"next_cursor"`
}

// WebhookDeliveryFilter narrows a delivery list.
type WebhookDeliveryFilter struct {
	EndpointID *string `json:"endpoint_id"`
	Status     *string `json:"status"`
}

// WebhookEnvelope is an event as an endpoint receives it: metadata-only
// endpoints get a redacted data and metadata_only true.
type WebhookEnvelope struct {
	Event
	MetadataOnly bool `json:"metadata_only,omitempty"`
}
