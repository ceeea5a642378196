package email

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Adapter sends live email through the relay (channels.Adapter).
type Adapter struct {
	Relay *Relay
	// Now dates the mail; the injected clock.
	Now func() time.Time
	// Timeout bounds one submission (MSGSVC_PROVIDER_TIMEOUT).
	Timeout time.Duration
}

// rewrittenHeaders are the headers Amazon SES replaces with its own values
// (docs.aws.amazon.com/ses/latest/dg/header-fields.html: "If you provide a
// Message-ID header, Amazon SES overrides the header with its own value",
// and likewise Date): a signature covering them would fail.
var rewrittenHeaders = []string{"Message-ID", "Date"}

// Send composes, signs (when the domain has a key) and submits the mail.
// The receipt's first id is our Message-ID; a relay that answers the data
// with an id of its own (Amazon SES: "250 Ok {id}") adds that id.
func (a *Adapter) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	var omit []string
	if a.Relay.RewritesMessageID {
		m, omit = withOwnReference(m), rewrittenHeaders
	}
	raw, err := Compose(m, now())
	if err != nil {
		return nil, err
	}
	e := m.Email
	if e.DKIM != nil {
		if raw, err = Sign(raw, e.Domain, e.DKIM, omit...); err != nil {
			// A key that cannot sign is the operator's to fix; sending
			// unsigned mail from a domain that publishes a key would fail
			// DMARC, so nothing goes out.
			return nil, &channels.Refusal{Code: apierr.ChannelUnavailable,
				Reason: fmt.Sprintf("The DKIM key of %s cannot sign: %v; nothing was sent.", e.Domain, err)}
		}
	}
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Timeout)
		defer cancel()
	}
	returnPath := e.ReturnPath
	if returnPath == "" {
		returnPath = e.Domain
	}
	reply, err := a.Relay.SubmitReply(ctx, BounceAddress(m.ID, returnPath), Recipients(e.To, e.Cc), raw)
	if err != nil {
		if channels.OutcomeUnknown(err) {
			return nil, err // the relay may have the mail: no refusal
		}
		return nil, Refusal(err)
	}
	ids := []string{"<" + MessageID(m.ID, e.Domain) + ">"}
	if id := RelayID(reply); id != "" {
		ids = append(ids, id)
	}
	return &channels.Receipt{ProviderIDs: ids}, nil
}

// withOwnReference is m whose References end with its own Message-ID, for
// a relay that replaces the Message-ID: a reply's References repeat ours
// (RFC 5322 section 3.6.4), so it still names our message.
func withOwnReference(m *channels.Message) *channels.Message {
	e := *m.Email
	e.References = append(append([]string{}, e.References...), MessageID(m.ID, e.Domain))
	out := *m
	out.Email = &e
	return &out
}

// RelayID is the message id in a relay's 250 to the data when it gives one
// the way Amazon SES does ("Ok {MessageID}",
// docs.aws.amazon.com/ses/latest/DeveloperGuide/smtp-response-codes.html);
// SES's Message-ID header is then <{MessageID}@…amazonses.com>. "" for any
// other reply ("2.0.0 OK: queued as …" names a queue, not a message).
func RelayID(reply string) string {
	f := strings.Fields(reply)
	if len(f) != 2 || !strings.EqualFold(f[0], "ok") || len(f[1]) > 200 {
		return ""
	}
	for _, c := range f[1] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return ""
		}
	}
	return f[1]
}

// Refusal maps a relay's answer to the API's (RFC 5321 section 4.2): the transient replies of a busy or throttling relay (421, 450, 451,
// 452, 454) are channel_rate_limited; a 5xx is permanent, so it is never
// 503: to RCPT recipient_unreachable, a security or policy refusal (5.7.x)
// and any 5xx to MAIL channel_restricted (the relay will not send for this
// sender), another 5xx to the data invalid_request (this mail, as it is,
// is refused); anything else (no connection, TLS, AUTH, another code) is
// channel_unavailable. The reason carries the relay's code and text.
func Refusal(err error) *channels.Refusal {
	var se *SubmitError
	if !errors.As(err, &se) || se.SMTP == nil {
		return &channels.Refusal{Code: apierr.ChannelUnavailable,
			Reason: fmt.Sprintf("The mail relay could not be used (%v); nothing was sent.", err)}
	}
	reply := se.SMTP
	reason := fmt.Sprintf("%d", reply.Code)
	if reply.EnhancedCode != [3]int{} && reply.EnhancedCode[0] > 0 {
		reason += fmt.Sprintf(" %d.%d.%d", reply.EnhancedCode[0], reply.EnhancedCode[1], reply.EnhancedCode[2])
	}
	reason += ": " + reply.Message
	permanent := reply.Code >= 500 && reply.Code < 600
	switch {
	case reply.Code == 421, reply.Code == 450, reply.Code == 451, reply.Code == 452, reply.Code == 454:
		return &channels.Refusal{Code: apierr.ChannelRateLimited, RetryAfter: channels.DefaultRetryAfter,
			Hold: channels.HoldNone, Reason: "The mail relay asks to slow down or try later (" + reason + ")."}
	case se.Stage == StageConnect:
	case se.Stage == StageRcpt && permanent:
		return &channels.Refusal{Code: apierr.RecipientUnreachable,
			Reason: fmt.Sprintf("The mail relay refused %s (%s).", se.Recipient, reason)}
	case permanent && (se.Stage == StageMail || reply.EnhancedCode[1] == 7):
		return &channels.Refusal{Code: apierr.ChannelRestricted,
			Reason: fmt.Sprintf("The mail relay will not send this sender's mail (%s at %s); nothing was sent.", reason, se.Stage)}
	case permanent:
		return &channels.Refusal{Code: apierr.InvalidRequest,
			Reason: fmt.Sprintf("The mail relay refused this mail for good (%s at %s); nothing was sent.", reason, se.Stage)}
	}
	return &channels.Refusal{Code: apierr.ChannelUnavailable,
		Reason: fmt.Sprintf("The mail relay refused the mail at %s (%s); nothing was sent.", se.Stage, reason)}
}
