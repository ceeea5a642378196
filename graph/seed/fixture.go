package seed

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
)

// Fixture is a workspace fixture file (docs/api.md, Fixtures).
type Fixture struct {
	Workspaces []FixtureWorkspace `json:"workspaces"`
}

// FixtureWorkspace is one workspace with its configuration and history.
type FixtureWorkspace struct {
	ID            string  `json:"id"`
	Name          *string `json:"name"`
	Plan          *string `json:"plan"`
	Status        *string `json:"status"`
	OwnerEmail    *string `json:"owner_email"`
	MessagesLimit *int    `json:"messages_limit"`
	RateLimit     *struct {
		PerSecond *int `json:"per_second"`
		PerMinute *int `json:"per_minute"`
	} `json:"rate_limit"`
	Websites []struct {
		ID      string         `json:"id"`
		Name    string         `json:"name"`
		Domains []string       `json:"domains"`
		Widget  *FixtureWidget `json:"widget"`
	} `json:"websites"`
	Whatsapp []struct {
		ID                string `json:"id"`
		WebsiteID         string `json:"website_id"`
		PhoneNumber       string `json:"phone_number"`
		Name              string `json:"name"`
		Status            string `json:"status"`
		MarketingMessages string `json:"marketing_messages"`
		Processing        *bool  `json:"processing"`
		// Provider connects the number to the WhatsApp Cloud API;
		// without it the number is sandbox-only.
		Provider *channels.Credentials `json:"provider"`
	} `json:"whatsapp"`
	Instagram []struct {
		ID         string `json:"id"`
		WebsiteID  string `json:"website_id"`
		Username   string `json:"username"`
		Status     string `json:"status"`
		Processing *bool  `json:"processing"`
		// Provider connects the account to Instagram's API.
		Provider *channels.Credentials `json:"provider"`
	} `json:"instagram"`
	EmailDomains []struct {
		Domain     string `json:"domain"`
		Verified   bool   `json:"verified"`
		Processing *bool  `json:"processing"`
		// ReturnPathDomain is the domain of the envelope sender (its MX
		// msgsvc); empty: MSGSVC_SMTP_RETURN_PATH_DOMAIN's.
		ReturnPathDomain string `json:"return_path_domain"`
		// DKIM is the domain's signing key, sealed when stored.
		DKIM *struct {
			Selector      string `json:"selector"`
			PrivateKeyPEM string `json:"private_key_pem"`
		} `json:"dkim"`
	} `json:"email_domains"`
	Email []struct {
		ID               string `json:"id"`
		WebsiteID        string `json:"website_id"`
		Address          string `json:"address"`
		ForwardingActive bool   `json:"forwarding_active"`
	} `json:"email"`
	Agents []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Email  string `json:"email"`
		Active *bool  `json:"active"`
		// MaxOpen bounds the conversations routing assigns her.
		MaxOpen *int `json:"max_open"`
	} `json:"agents"`
	// Members are the workspace's other people (app.md 1); Role is owner,
	// admin, developer or agent, Active true when left out.
	Members []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Email  string `json:"email"`
		Role   string `json:"role"`
		Active *bool  `json:"active"`
	} `json:"members"`
	// Knowledge and AI configure the service's own processing.
	Knowledge []struct {
		ID       string `json:"id"`
		Question string `json:"question"`
		Answer   string `json:"answer"`
	} `json:"knowledge"`
	AI *struct {
		Instructions *string `json:"instructions"`
	} `json:"ai"`
	Templates []struct {
		WhatsappAccountID string `json:"whatsapp_account_id"`
		Name              string `json:"name"`
		Language          string `json:"language"`
		Category          string `json:"category"`
		Status            string `json:"status"`
		Body              string `json:"body"`
	} `json:"templates"`
	Keys []struct {
		ID          string           `json:"id"`
		Secret      string           `json:"secret"`
		Scopes      []string         `json:"scopes"`
		Channels    []string         `json:"channels"`
		WebsiteIDs  []string         `json:"website_ids"`
		IPAllowlist []string         `json:"ip_allowlist"`
		ExpiresAt   *model.Timestamp `json:"expires_at"`
		Revoked     bool             `json:"revoked"`
		RolledTo    *string          `json:"rolled_to"`
		GraceUntil  *model.Timestamp `json:"grace_until"`
		Version     *string          `json:"version"`
	} `json:"keys"`
	Contacts []struct {
		ID              string  `json:"id"`
		Livemode        bool    `json:"livemode"`
		Name            string  `json:"name"`
		Email           *string `json:"email"`
		Phone           *string `json:"phone"`
		InstagramUserID *string `json:"instagram_user_id"`
		OptOuts         struct {
			Whatsapp  bool `json:"whatsapp"`
			Email     bool `json:"email"`
			Instagram bool `json:"instagram"`
		} `json:"opt_outs"`
	} `json:"contacts"`
	Conversations []struct {
		ID              string           `json:"id"`
		Livemode        bool             `json:"livemode"`
		Channel         string           `json:"channel"`
		AccountID       string           `json:"account_id"`
		ContactID       *string          `json:"contact_id"`
		Status          *string          `json:"status"`
		Mode            *string          `json:"mode"`
		Subject         *string          `json:"subject"`
		AssignedAgentID *string          `json:"assigned_agent_id"`
		Tags            []string         `json:"tags"`
		CreatedAt       *model.Timestamp `json:"created_at"`
		Messages        []FixtureMessage `json:"messages"`
	} `json:"conversations"`
}

// FixtureMessage is one message of a fixture conversation.
type FixtureMessage struct {
	ID        string           `json:"id"`
	Direction string           `json:"direction"`
	Text      *string          `json:"text"`
	Status    *string          `json:"status"`
	CreatedAt *model.Timestamp `json:"created_at"`
}

// FixtureError names the JSON path of the field a fixture got wrong.
type FixtureError struct {
	Path    string
	Message string
}

func (e *FixtureError) Error() string { return e.Path + ": " + e.Message }

// ParseFixture decodes a fixture, refusing unknown fields and wrong types
// with the path of the field.
func ParseFixture(r io.Reader) (*Fixture, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f Fixture
	if err := dec.Decode(&f); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, &FixtureError{Path: typeErr.Field, Message: "must be " + typeErr.Type.String()}
		}
		return nil, &FixtureError{Path: "$", Message: err.Error()}
	}
	return &f, nil
}
