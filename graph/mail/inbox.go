package mail

import (
	"context"
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// InboxStore is what the SMTP listener reads and writes; repo.Store is one.
type InboxStore interface {
	MailRoutes(ctx context.Context, address string) ([]repo.MailRoute, error)
	BounceRoutes(ctx context.Context, sending []string, returnPath string) ([]repo.MailRoute, error)
	InsertInboundMail(ctx context.Context, m *repo.InboundMail) error
}

// MailQueue hands a stored mail to its job; jobs.Client is one.
type MailQueue interface {
	InboundMail(ctx context.Context, id string) error
}

// Inbox is the listener's side of msgsvc (channels/email.Inbox): recipients
// at RCPT, the raw mail stored before the 250, processing as a job.
type Inbox struct {
	Store InboxStore
	Queue MailQueue // nil: the sweep picks the mail up
	Clock clock.Clock
	// ReturnPath reads the domains of bounce addresses.
	ReturnPath ReturnPath
}

// bounceID reads bounces+{msg_id}@{domain}, domain being a return path.
func bounceID(address string) (msgID, domain string, ok bool) {
	local, domain, found := strings.Cut(strings.ToLower(address), "@")
	id, isBounce := strings.CutPrefix(local, "bounces+")
	return id, domain, found && isBounce && id != "" && domain != ""
}

// Accepts takes an email account's address, or a bounces+ address at the
// return path of a verified domain (or at the domain itself); anything else
// is a stranger (550 5.1.1).
func (b *Inbox) Accepts(ctx context.Context, rcpt string) (bool, error) {
	if _, domain, ok := bounceID(rcpt); ok {
		routes, err := b.Store.BounceRoutes(ctx, b.ReturnPath.Sending(domain), domain)
		return len(routes) > 0, err
	}
	routes, err := b.Store.MailRoutes(ctx, rcpt)
	return len(routes) > 0, err
}

// Deliver stores the raw mail, then queues its processing. A lost queue
// call loses nothing: the sweep finds the mail unprocessed.
func (b *Inbox) Deliver(ctx context.Context, from string, rcpts []string, raw []byte) error {
	now := b.Clock.Now()
	m := &repo.InboundMail{ID: repo.NewID("im_", now), MailFrom: from, Recipients: rcpts, Raw: raw, ReceivedAt: now}
	if err := b.Store.InsertInboundMail(ctx, m); err != nil {
		return fmt.Errorf("mail: store inbound mail: %w", err)
	}
	if b.Queue != nil {
		if err := b.Queue.InboundMail(context.WithoutCancel(ctx), m.ID); err != nil {
			return nil //nolint:nilerr // stored: the sweep processes it
		}
	}
	return nil
}
