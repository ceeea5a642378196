package send

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// EmailEnvelope completes an outbound email: its sending domain, DKIM key,
// In-Reply-To and References from the thread, and unsubscribe link;
// mail.Envelope is one.
type EmailEnvelope interface {
	Complete(ctx context.Context, q repo.Queries, s repo.Scope, conversationID, contactID string, e *channels.Email) error
}

// SenderDNS lists the DNS records a sending domain publishes and its
// return path; mail.DNS is one.
type SenderDNS interface {
	Records(ctx context.Context, workspaceID string, d repo.EmailDomain) (string, []*model.DNSRecord, error)
}

// emailEnvelope fills an outbound email's headers from its thread; without
// an EmailEnvelope only the domain is set.
func (s *Service) emailEnvelope(ctx context.Context, q repo.Queries, a *auth.Actor, t *sendTarget, e *channels.Email) error {
	if s.Email == nil {
		e.Domain = mail.DomainOf(e.From)
		return nil
	}
	var convID, contactID string
	if t.conv != nil {
		convID = t.conv.ID
	}
	if t.contact != nil {
		contactID = t.contact.ID
	}
	return s.Email.Complete(ctx, q, a.Scope(), convID, contactID, e)
}

// emailFiles gives a live email's attachments their bytes: a mail carries
// them, where other channels take a link.
func emailFiles(ctx context.Context, q repo.Queries, a *auth.Actor, ob *channels.Message) error {
	if ob.Channel != "email" || !a.Livemode {
		return nil
	}
	return mail.FileContents(ctx, q, a.Scope(), ob.Attachments)
}

func nonEmptyPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
