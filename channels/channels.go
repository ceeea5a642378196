// Package channels is the boundary between msgsvc's rules and the providers
// (the WhatsApp Cloud API, Instagram, an SMTP relay, the website widget). An
// adapter speaks one provider's protocol and nothing else: it turns an
// outbound Message into the provider's requests and reports what the
// provider said. Every channel rule has been checked before Send is called.
package channels

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Adapter sends outbound messages of one channel.
type Adapter interface {
	// Send returns the provider's ids of an accepted message (several when
	// the provider took it as several messages: text plus attachments). A
	// *Refusal says the provider said no or could not be reached; any other
	// error is treated as the provider being unavailable.
	Send(ctx context.Context, m *Message) (*Receipt, error)
}

// Receipt is what the provider accepted.
type Receipt struct {
	// ProviderIDs are the provider's ids, the first one being the message's
	// delivery.provider_message_id.
	ProviderIDs []string
	// RecipientWaID is the wa_id WhatsApp answered for the recipient
	// (contacts[0].wa_id), which may be another form of the number sent to.
	RecipientWaID string
	// Failed is set when the provider took the first parts of a message
	// made of several and refused a later one (the parts after it were not
	// sent): ProviderIDs are the parts it took, so the message went out in
	// part and its status is failed with this refusal's reason.
	Failed *Refusal
}

// Message is one outbound message as a provider needs it.
type Message struct {
	ID       string
	Livemode bool
	Channel  string
	Account  Account
	// To is the customer: a phone (E.164 or digits) or, for a WhatsApp
	// customer known by no phone, its business-scoped user id; an
	// Instagram-scoped user id, an email address or a website visitor id.
	To          string
	Text        *string
	HTML        *string
	Email       *Email
	Template    *Template
	Attachments []File
	// ReplyAs is "comment" or "dm" for an Instagram comment conversation;
	// CommentID is the provider's id of the comment answered.
	ReplyAs   string
	CommentID string
	// LiveMediaID is the live video a comment answered was made on (a
	// live_comments comment): its private reply goes out only while the
	// video is being broadcast.
	LiveMediaID string
	// Tag is Meta's message tag of an Instagram DM sent outside the 24-hour
	// window: "HUMAN_AGENT" (a person's reply, within 7 days).
	Tag string
	// Rich is the quoted message, a reaction, a location or choices.
	Rich
}

// Account is the sending WhatsApp number, Instagram account, email address
// or website, with its provider credentials.
type Account struct {
	ID      string
	Channel string
	// Address is the phone number, Instagram username, email address or
	// website id.
	Address  string
	Provider *Credentials
}

// Credentials are an account's provider settings, unsealed. They are never
// logged: LogValue hides the token.
type Credentials struct {
	// WhatsApp.
	PhoneNumberID string `json:"phone_number_id,omitempty"`
	WABAID        string `json:"waba_id,omitempty"`
	// Instagram: Login is "instagram" (node IGUserID on the Instagram
	// Graph URL) or "facebook" (node PageID on the Meta Graph URL).
	Login    string `json:"login,omitempty"`
	IGUserID string `json:"ig_user_id,omitempty"`
	PageID   string `json:"page_id,omitempty"`
	// AccessToken is the bearer token of both.
	AccessToken string `json:"access_token,omitempty"`
	// AppSecret is the secret of the Meta app the Instagram account is
	// connected through, when it is not the one of MSGSVC_META_APP_SECRET
	// (an Instagram Login app has its own): its webhooks are verified
	// with it, and its calls carry appsecret_proof.
	AppSecret string `json:"app_secret,omitempty"`
	// TokenIssuedAt is when the Instagram Login token was connected or
	// last refreshed; TokenExpiresAt when Meta said it expires (nil until
	// the first refresh tells).
	TokenIssuedAt  *time.Time `json:"token_issued_at,omitempty"`
	TokenExpiresAt *time.Time `json:"token_expires_at,omitempty"`
}

// LogValue keeps the token out of every log line.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("phone_number_id", c.PhoneNumberID), slog.String("waba_id", c.WABAID),
		slog.String("login", c.Login), slog.String("ig_user_id", c.IGUserID), slog.String("page_id", c.PageID))
}

// Email are the headers of an outbound email.
type Email struct {
	From    string
	To      []string
	Cc      []string
	Subject string
	// Domain is the sending domain: Message-ID <{id}@{domain}>.
	Domain string
	// ReturnPath is the domain of the envelope sender,
	// bounces+{id}@{return path}, whose MX receives the bounces; "" is
	// Domain.
	ReturnPath string
	// InReplyTo and References thread a reply.
	InReplyTo  string
	References []string
	// UnsubscribeURL is the one-click link of List-Unsubscribe.
	UnsubscribeURL string
	// DKIM signs the mail when the domain has a key.
	DKIM *DKIMKey
	// AutoReplied marks a reply no person wrote (the AI's):
	// Auto-Submitted: auto-replied (RFC 3834), so that the customer's own
	// autoresponder does not answer it.
	AutoReplied bool
}

// DKIMKey is a domain's signing key (PEM, unsealed, never logged).
type DKIMKey struct {
	Selector      string
	PrivateKeyPEM string
}

// LogValue keeps the key out of every log line.
func (k DKIMKey) LogValue() slog.Value { return slog.StringValue("selector=" + k.Selector) }

// Template is a WhatsApp template with its parameters, checked against
// the template's components (channels/template.go).
type Template struct {
	Name     string
	Language string
	Category string
	TemplateParameters
	// Marketing sends through the Marketing Messages endpoint.
	Marketing bool
}

// File is an attachment: URL is a signed link valid for one hour, Content the
// bytes (for providers that take an upload).
type File struct {
	ID          string
	Filename    string
	ContentType string
	Size        int
	URL         string
	Content     []byte
}

// Hold is what a rate limit holds back: the sending number, one
// recipient, or one recipient's marketing messages.
type Hold int

// What a provider's rate limit holds back.
const (
	HoldNone Hold = iota
	HoldAccount
	HoldRecipient
	HoldMarketing
)

// Refusal is a provider's no (or its absence), with the API code it maps to
// as docs/api.md lists them, and the provider's own code and text in Reason
// (for example "131047: Re-engagement message").
type Refusal struct {
	Code   apierr.Code
	Reason string
	// RetryAfter is set for channel_rate_limited (60 s when the provider gave
	// no time); Hold says what to hold back until then.
	RetryAfter time.Duration
	Hold       Hold
	// NeedsReauth: the provider rejected the token (Meta code 190).
	NeedsReauth bool
	// RefreshTemplates: the template cache is stale (WhatsApp 132001).
	RefreshTemplates bool
	// MarketingOptOut: the customer stopped marketing messages (WhatsApp
	// 131050); the contact's marketing_opt_outs.whatsapp is set.
	MarketingOptOut bool
}

// Error names the code and the reason, for logs.
func (e *Refusal) Error() string { return "refused: " + string(e.Code) + ": " + e.Reason }

// AsRefusal returns the Refusal inside err; any other error becomes a
// channel_unavailable refusal (a timeout, a connection error).
func AsRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return &Refusal{Code: apierr.ChannelUnavailable, Reason: "the provider could not be reached"}
}

// OutcomeUnknown says whether err is a provider call whose request went
// out but whose answer never came (a timeout, a reset or an EOF after the
// request was written; a relay that took the data and dropped): the
// provider may have delivered the message, so it is neither accepted nor
// refused and must never be sent again. An error says so by a method
// OutcomeUnknown() bool anywhere in its chain; the first one found decides.
func OutcomeUnknown(err error) bool {
	var u interface{ OutcomeUnknown() bool }
	return errors.As(err, &u) && u.OutcomeUnknown()
}

// NotSent marks err as a failure before the customer's message went out (a
// media upload that got no answer, say): whatever its cause, the send was
// refused, not left unknown.
func NotSent(err error) error {
	if err == nil {
		return nil
	}
	return notSent{err}
}

type notSent struct{ err error }

func (e notSent) Error() string        { return e.err.Error() }
func (e notSent) Unwrap() error        { return e.err }
func (e notSent) OutcomeUnknown() bool { return false }

// DefaultRetryAfter is the wait of a provider rate limit that gives none.
const DefaultRetryAfter = 60 * time.Second
