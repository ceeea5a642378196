package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
)

// ProcessStore is what processing reads and writes outside its
// transaction.
type ProcessStore interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	UnprocessedInboundMail(ctx context.Context, id string) (*repo.InboundMail, error)
	PendingInboundMails(ctx context.Context, before, now time.Time, retry time.Duration, maxAttempts, limit int) ([]string, error)
	FailInboundMail(ctx context.Context, id, lastError string) (int, error)
	GiveUpInboundMail(ctx context.Context, id, lastError string, maxAttempts int) (int, error)
}

// Processor turns stored inbound mail into messages and bounces.
type Processor struct {
	Store   ProcessStore
	Clock   clock.Clock
	Events  event.Recorder
	Inbound *inbound.Service
	// ReturnPath reads the domains of bounce addresses.
	ReturnPath ReturnPath
	// Parse reads a mail (nil: email.Parse); Budget bounds it (0:
	// ParseBudget).
	Parse  func(raw []byte) *email.Parsed
	Budget time.Duration
}

// A mail whose processing fails (an error or a panic) is tried again
// RetryAfter times 2^n after it was received (or put back by an operator),
// n its failed attempts so far (20 s, 40 s, 80 s, … after), and given up at its MaxMailAttempts-th
// failure, about 23 hours after it was received: it stays stored
// unprocessed, with its attempts and last error, and is tried no more.
const (
	RetryAfter      = 10 * time.Second
	MaxMailAttempts = 14
)

// Process handles one stored mail. It reads (parses) the mail outside any
// transaction, then stores what it holds in one transaction with its
// "processed" mark, so a crash repeats it whole and a repeat finds it
// done. A mail given up, whose next try is not due, or that this process
// is reading already, is left alone; one that cannot be read within its
// bounds is given up at once (giveUp).
func (p *Processor) Process(ctx context.Context, id string) error {
	if _, busy := reading.LoadOrStore(id, true); busy {
		return nil
	}
	defer reading.Delete(id)
	m, err := p.Store.UnprocessedInboundMail(ctx, id)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && !p.due(m)) {
		return nil
	}
	if err != nil {
		return err
	}
	parsed, err := p.read(ctx, m)
	var unreadable *unreadableError
	if errors.As(err, &unreadable) {
		return p.giveUp(ctx, m, unreadable)
	}
	if err != nil {
		return p.failed(ctx, m, err)
	}
	err = p.Store.InTx(ctx, func(q repo.Queries) error {
		locked, err := q.LockInboundMailState(ctx, id)
		if errors.Is(err, repo.ErrNotFound) {
			return nil // done meanwhile, or another worker has it
		}
		if err != nil || !p.due(locked) {
			return err
		}
		return p.processSafely(ctx, q, m, parsed)
	})
	if err != nil {
		return p.failed(ctx, m, err)
	}
	p.Events.Committed(ctx)
	return nil
}

// due says whether a mail is to be tried now: never tried, or failed fewer
// than MaxMailAttempts times and its next try due.
func (p *Processor) due(m *repo.InboundMail) bool {
	if m.Attempts == 0 {
		return true
	}
	from := m.ReceivedAt
	if m.RetryFrom != nil {
		from = *m.RetryFrom
	}
	return m.Attempts < MaxMailAttempts && !p.Clock.Now().Before(from.Add(RetryAfter<<m.Attempts))
}

// processSafely is process with a panic turned into the failure of this
// mail alone: it is tried again and given up like any other failing mail,
// and never takes down the worker (the sweep runs outside the job
// runner's recovery).
func (p *Processor) processSafely(ctx context.Context, q repo.Queries, m *repo.InboundMail, parsed *email.Parsed) (err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("inbound mail processing panicked", "id", m.ID, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("mail: %s: processing panicked: %v", m.ID, v)
		}
	}()
	return p.process(ctx, q, m, parsed)
}

// process turns one locked mail, as read, into messages and bounces, and
// marks it processed.
func (p *Processor) process(ctx context.Context, q repo.Queries, m *repo.InboundMail, parsed *email.Parsed) error {
	if (parsed.From == "" || !strings.Contains(parsed.From, "@")) && m.MailFrom != "" {
		// No readable From: the envelope sender says who it is.
		parsed.From = strings.ToLower(m.MailFrom)
	}
	for _, rcpt := range m.Recipients {
		if err := p.recipient(ctx, q, rcpt, parsed); err != nil {
			return fmt.Errorf("mail: %s to %s: %w", m.ID, rcpt, err)
		}
	}
	var note *string
	if len(parsed.Notes) > 0 {
		s := strings.Join(parsed.Notes, " ")
		note = &s
	}
	return q.FinishInboundMail(ctx, m.ID, p.Clock.Now(), note)
}

// failed counts a failed attempt at a mail and gives the mail up at its
// MaxMailAttempts-th. An attempt cut short by ctx (a shutdown) is not
// counted.
func (p *Processor) failed(ctx context.Context, m *repo.InboundMail, failure error) error {
	if ctx.Err() != nil {
		return failure
	}
	n, err := p.Store.FailInboundMail(ctx, m.ID, failure.Error())
	if err != nil || n == 0 {
		return errors.Join(failure, err)
	}
	reason := reasonClass(failure)
	metrics.ObserveProviderHookFailed("email", reason, n == MaxMailAttempts)
	if n < MaxMailAttempts {
		return failure
	}
	slog.Error("inbound mail given up after too many failed attempts; it is kept unprocessed",
		"id", m.ID, "attempts", n, "reason", reason, "err", failure)
	return nil
}

// reasonClass is the metric label of why a mail's processing failed:
// "database", or "processing" (the mail or our own rules, a panic too).
func reasonClass(err error) string {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) || errors.Is(err, context.DeadlineExceeded) {
		return "database"
	}
	return "processing"
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
	for _, w := range p.Warnings {
		in.Warnings = append(in.Warnings, model.EmailWarning(w))
	}
	for _, f := range p.Attachments {
		in.Files = append(in.Files, inbound.EmailFile{Filename: f.Filename, ContentType: f.ContentType,
			ContentID: f.ContentID, Content: f.Content})
	}
	return in
}

// Sweep processes mail whose job was lost (received over a grace ago) and
// failed mail whose next try is due.
func (p *Processor) Sweep(ctx context.Context, grace time.Duration) error {
	now := p.Clock.Now()
	ids, err := p.Store.PendingInboundMails(ctx, now.Add(-grace), now, RetryAfter, MaxMailAttempts, 100)
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
