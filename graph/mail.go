package graph

import (
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/mail"
)

// unsubscribeLinks signs and reads the List-Unsubscribe links of emails.
func (r *Resolver) unsubscribeLinks() mail.Links {
	return mail.Links{Secrets: r.secrets(), PublicURL: r.PublicURL}
}

// mailEnvelope completes outbound emails (DKIM key, thread headers,
// unsubscribe link).
func (r *Resolver) mailEnvelope() *mail.Envelope {
	return &mail.Envelope{Keys: mail.DKIMKeys{Seal: r.Seal}, Links: r.unsubscribeLinks(), ReturnPath: r.Mail.ReturnPath}
}

// senderDNS lists the DNS records of sending domains.
func (r *Resolver) senderDNS() mail.DNS {
	return mail.DNS{Store: r.Store, Keys: mail.DKIMKeys{Seal: r.Seal}, Settings: r.Mail}
}

// MailProcessor turns stored inbound mail into messages and bounces.
func (r *Resolver) MailProcessor() *mail.Processor {
	return &mail.Processor{Store: r.Store, Clock: r.Clock, Events: r.events(), Inbound: r.inbound(), ReturnPath: r.Mail.ReturnPath}
}

// MailInbox is the SMTP listener's side of the service.
func (r *Resolver) MailInbox(queue mail.MailQueue) *mail.Inbox {
	return &mail.Inbox{Store: r.Store, Queue: queue, Clock: r.Clock, ReturnPath: r.Mail.ReturnPath}
}

// Unsubscriber answers the List-Unsubscribe links.
func (r *Resolver) Unsubscriber() *mail.Unsubscriber {
	return &mail.Unsubscriber{Store: r.Store, Links: r.unsubscribeLinks(), Clock: r.Clock, Events: r.events()}
}

// Notices sends the owner notices of outbox_emails through the relay of the
// live email adapter; without one they wait.
func (r *Resolver) Notices() *mail.Notices {
	n := &mail.Notices{Store: r.Store, Clock: r.Clock}
	if a, ok := r.Adapters["email"].(*email.Adapter); ok && a.Relay != nil {
		n.Relay, n.Hostname, n.Timeout = a.Relay, a.Relay.Hostname, a.Timeout
	}
	return n
}
