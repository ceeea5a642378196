package mail

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
)

// ParseBudget bounds the reading of one mail. Scan's bounds keep the
// reader's work to well under a second on the largest mail they pass; a
// mail that takes longer is given up, not tried again for as long.
const ParseBudget = time.Minute

// reading holds the ids of the mails this process is reading, so that its
// job and its sweep do not read one mail twice at once.
var reading sync.Map

// unreadableError is a mail no further attempt can read: past Scan's
// bounds, or over the budget.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

// read scans a mail, then parses it within the budget, outside any
// transaction. The parser runs in a goroutine of its own, left to finish
// when the budget runs out (Scan bounds its work).
func (p *Processor) read(ctx context.Context, m *repo.InboundMail) (*email.Parsed, error) {
	if err := email.Scan(m.Raw); err != nil {
		return nil, &unreadableError{err}
	}
	parse, budget := p.Parse, p.Budget
	if parse == nil {
		parse = email.Parse
	}
	if budget <= 0 {
		budget = ParseBudget
	}
	done := make(chan *email.Parsed, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				slog.Error("inbound mail parser panicked", "id", m.ID, "panic", v)
				done <- nil
			}
		}()
		done <- parse(m.Raw)
	}()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case parsed := <-done:
		if parsed == nil {
			return nil, fmt.Errorf("mail: %s: the parser panicked", m.ID)
		}
		return parsed, nil
	case <-timer.C:
		return nil, &unreadableError{fmt.Errorf("reading the mail took longer than %v", budget)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// giveUp records a mail that cannot be read as given up at once, with the
// reason as its last error: it stays stored unprocessed, listed with the
// failed mails, and is tried no more (an operator may put it back).
func (p *Processor) giveUp(ctx context.Context, m *repo.InboundMail, reason error) error {
	n, err := p.Store.GiveUpInboundMail(ctx, m.ID, reason.Error(), MaxMailAttempts)
	if err != nil || n == 0 {
		return err
	}
	metrics.ObserveProviderHookFailed("email", "processing", true)
	slog.Error("inbound mail given up: it cannot be read; it is kept unprocessed", "id", m.ID, "attempts", n, "err", reason)
	return nil
}
