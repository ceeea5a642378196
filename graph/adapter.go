package graph

import (
	"context"
	"fmt"

	"github.com/msgsvc/msgsvc/repo"
)

// Adapter hands outbound messages to one channel's provider (the WhatsApp
// Cloud API, Instagram, an SMTP relay, the website widget). Every channel
// rule has been checked before Send is called; the adapter only reports what
// the provider said.
type Adapter interface {
	// Send returns the provider's id of an accepted message, or a *Refusal
	// when the provider said no. Any other error means the outcome is
	// unknown (a timeout, a 5xx); the send fails and nothing is stored.
	Send(ctx context.Context, m *Outbound) (providerMessageID string, err error)
}

// Outbound is one message as a provider needs it.
type Outbound struct {
	MessageID string
	Livemode  bool
	Channel   string
	// Account is the sending WhatsApp number, Instagram account, email
	// address or website.
	Account *repo.Account
	// To is the customer: a phone, an Instagram user id, an email address or
	// a website visitor id.
	To          string
	Text        *string
	HTML        *string
	Email       *OutboundEmail
	Template    *OutboundTemplate
	Attachments []OutboundFile
	// ReplyAs is "comment" or "dm" for an Instagram comment conversation;
	// CommentMessageID is the comment answered.
	ReplyAs          string
	CommentMessageID string
}

// OutboundEmail are the headers of an email.
type OutboundEmail struct {
	From    string
	Subject string
	Cc      []string
}

// OutboundTemplate is a WhatsApp template with its parameters.
type OutboundTemplate struct {
	Name       string
	Language   string
	Category   string
	Parameters []string
	// Marketing sends through the Marketing Messages endpoint.
	Marketing bool
}

// OutboundFile is an attachment; URL is a signed link valid for one hour.
type OutboundFile struct {
	ID          string
	Filename    string
	ContentType string
	Size        int
	URL         string
}

// Refusal is a provider's no, with the API error code it maps to (for
// example WhatsApp 131047 → window_closed) and the provider's reason. Code
// must be in rest's error table; any other code answers 500.
type Refusal struct {
	Code   string
	Reason string
}

// Error names the code and the reason, for logs.
func (e *Refusal) Error() string { return "refused: " + e.Code + ": " + e.Reason }

// SandboxAdapter accepts every message without calling anyone: test keys
// never reach a provider (decisions 4). The sandbox delivery job moves the
// message on to delivered or failed.
type SandboxAdapter struct{}

// Send accepts the message under a made-up provider id.
func (SandboxAdapter) Send(_ context.Context, m *Outbound) (string, error) {
	return "sandbox_" + m.MessageID, nil
}

// unavailableAdapter stands in for a live channel whose provider adapter does
// not exist yet. It refuses honestly rather than pretend a message went out:
// nothing is stored, no quota is used, and the caller gets
// channel_unavailable (503, so an Idempotency-Key is released for a retry).
type unavailableAdapter struct{ channel string }

// Send refuses: there is no provider to hand the message to.
func (u unavailableAdapter) Send(context.Context, *Outbound) (string, error) {
	return "", &Refusal{Code: "channel_unavailable",
		Reason: fmt.Sprintf("Live sending on %s is not available yet; nothing was sent.", u.channel)}
}

// adapter picks the adapter of a send: the sandbox for test keys, the
// configured provider for live ones.
func (r *Resolver) adapter(livemode bool, channel string) Adapter {
	if !livemode {
		return SandboxAdapter{}
	}
	if a, ok := r.Adapters[channel]; ok && a != nil {
		return a
	}
	return unavailableAdapter{channel: channel}
}
