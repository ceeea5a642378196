package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/clock"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
)

// ProcessStore is what processing reads outside its transaction.
type ProcessStore interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	PendingInboundMails(ctx context.Context, before time.Time, limit int) ([]string, error)
}

// Processor turns stored inbound mail into messages and bounces.
type Processor struct {
	Store   ProcessStore
	Clock   clock.Clock
	Events  event.Recorder
	Inbound *inbound.Service
	// ReturnPath reads the domains of bounce addresses.
	ReturnPath ReturnPath
}

// Process handles one stored mail, in one transaction with its "processed"
// mark, so a crash repeats it whole and a repeat finds it done.
func (p *Processor) Process(ctx context.Context, id string) error {
	err := p.Store.InTx(ctx, func(q repo.Queries) error {
		m, err := q.LockInboundMail(ctx, id)
		if errors.Is(err, repo.ErrNotFound) {
			return nil // done, or another worker has it
		}
		if err != nil {
			return err
		}
		parsed := email.Parse(m.Raw)
		if (parsed.From == "" || !strings.Contains(parsed.From, "@")) && m.MailFrom != "" {
			// No readable From: the envelope sender says who it is.
			parsed.From = strings.ToLower(m.MailFrom)
		}
		var problems []string
		for _, rcpt := range m.Recipients {
			if err := p.recipient(ctx, q, rcpt, parsed); err != nil {
				return fmt.Errorf("mail: %s to %s: %w", id, rcpt, err)
			}
		}
		var note *string
		if len(parsed.Notes) > 0 {
			problems = append(problems, parsed.Notes...)
			s := strings.Join(problems, " ")
			note = &s
		}
		return q.FinishInboundMail(ctx, id, p.Clock.Now(), note)
	})
	if err != nil {
		return err
	}
	p.Events.Committed(ctx)
	return nil
}

// recipient delivers the mail to one envelope recipient: a bounce, or the
// email accounts with that address.
func (p *Processor) recipient(ctx context.Context, q repo.Queries, rcpt string, parsed *email.Parsed) error {
	if msgID, domain, ok := bounceID(rcpt); ok {
		return p.bounce(ctx, q, msgID, domain, parsed)
	}
	routes, err := q.MailRoutes(ctx, rcpt)
	if err != nil {
		return err
	}
	for _, route := range routes {
		acc, err := q.Account(ctx, route.WorkspaceID, "email", route.AccountID)
		if err != nil {
			return err
		}
		_, err = p.Inbound.ReceiveEmail(ctx, q, acc, emailIn(parsed))
		if errors.Is(err, inbound.ErrDuplicate) {
			slog.Info("inbound mail already stored", "message_id", parsed.MessageID, "workspace_id", route.WorkspaceID)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// emailIn is the parsed mail as graph/inbound stores it; the notes go with
// the text.
func emailIn(p *email.Parsed) inbound.EmailIn {
	in := inbound.EmailIn{From: p.From, FromName: p.FromName, To: p.To, Cc: p.Cc, Subject: p.Subject,
		Text: p.Text, HTML: p.HTML, MessageID: p.MessageID, InReplyTo: p.InReplyTo, References: p.References,
		AutoSubmitted: p.AutoSubmitted}
	if len(p.Notes) > 0 {
		in.Text = strings.TrimSpace(in.Text + "\n\n[msgsvc: " + strings.Join(p.Notes, " ") + "]")
	}
	for _, id := range append(append([]string{}, p.InReplyTo...), p.References...) {
		if local, _, ok := strings.Cut(id, "@"); ok && strings.HasPrefix(local, "msg_") {
			in.OurIDs = append(in.OurIDs, local)
		}
	}
	for _, f := range p.Attachments {
		in.Files = append(in.Files, inbound.EmailFile{Filename: f.Filename, ContentType: f.ContentType, Content: f.Content})
	}
	return in
}

// Sweep processes mail whose job was lost (received over a grace ago).
func (p *Processor) Sweep(ctx context.Context, grace time.Duration) error {
	ids, err := p.Store.PendingInboundMails(ctx, p.Clock.Now().Add(-grace), 100)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := p.Process(ctx, id); err != nil {
			slog.Warn("inbound mail", "id", id, "err", err)
		}
	}
	return nil
}
