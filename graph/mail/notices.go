package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// NoticeStore is the queue of owner notices (outbox_emails); repo.Store is
// one.
type NoticeStore interface {
	ClaimOutboxEmails(ctx context.Context, now, until time.Time, limit int) ([]repo.OutboxEmail, error)
	OutboxEmailSent(ctx context.Context, id string, at time.Time) error
	RetryOutboxEmail(ctx context.Context, id string, next time.Time, lastError string) error
}

// Submitter hands a mail to the relay, nil only on its 250 to the data;
// *email.Relay is one.
type Submitter interface {
	Submit(ctx context.Context, from string, to []string, data []byte) error
}

// Notice retry schedule: the first retry after NoticeRetryFirst, each next
// one twice as late, never later than NoticeRetryMax; there is no last one.
const (
	NoticeRetryFirst = 30 * time.Second
	NoticeRetryMax   = time.Hour
	noticeBatch      = 20
)

// NoticeRetryAfter is the wait after the given number of refused attempts.
func NoticeRetryAfter(refused int) time.Duration {
	wait := NoticeRetryFirst
	for i := 1; i < refused && wait < NoticeRetryMax; i++ {
		wait *= 2
	}
	return min(wait, NoticeRetryMax)
}

// Notices sends the owner notices of outbox_emails through the relay, retried until the relay accepts them.
type Notices struct {
	Store NoticeStore
	// Relay is nil without MSGSVC_SMTP_RELAY: notices then wait.
	Relay Submitter
	// Hostname is MSGSVC_SMTP_HOSTNAME: notices come from
	// notices@{Hostname} and their Message-ID is <{eml_id}@{Hostname}>.
	Hostname string
	Clock    clock.Clock
	// Timeout bounds one submission (0: 30 s); a claim lasts four times it.
	Timeout time.Duration
}

// SendNotices sends the notices due now. A refusal schedules the next
// attempt; only a store error is returned.
func (n *Notices) SendNotices(ctx context.Context) error {
	if n.Relay == nil {
		return nil
	}
	timeout := n.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	now := n.Clock.Now()
	due, err := n.Store.ClaimOutboxEmails(ctx, now, now.Add(4*timeout), noticeBatch)
	if err != nil {
		return fmt.Errorf("mail: claim notices: %w", err)
	}
	for _, m := range due {
		if err := n.send(ctx, m, timeout); err != nil {
			next := n.Clock.Now().Add(NoticeRetryAfter(m.Attempts + 1))
			slog.Warn("owner notice not accepted", "id", m.ID, "workspace_id", m.WorkspaceID,
				"attempts", m.Attempts+1, "next_attempt_at", next, "err", err)
			if err := n.Store.RetryOutboxEmail(ctx, m.ID, next, err.Error()); err != nil {
				return fmt.Errorf("mail: notice %s: %w", m.ID, err)
			}
			continue
		}
		if err := n.Store.OutboxEmailSent(ctx, m.ID, n.Clock.Now()); err != nil {
			return fmt.Errorf("mail: notice %s: %w", m.ID, err)
		}
		slog.Info("owner notice sent", "id", m.ID, "workspace_id", m.WorkspaceID)
	}
	return nil
}

func (n *Notices) send(ctx context.Context, m repo.OutboxEmail, timeout time.Duration) error {
	host := n.Hostname
	if host == "" {
		host = "localhost"
	}
	from := "notices@" + host
	raw, err := email.ComposeNotice(email.Notice{From: from, To: m.ToAddress, Subject: m.Subject, Body: m.Body,
		MessageID: m.ID + "@" + host}, n.Clock.Now())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return n.Relay.Submit(ctx, from, []string{m.ToAddress}, raw)
}

// ErrNoRelay: there is no MSGSVC_SMTP_RELAY to send through.
var ErrNoRelay = errors.New("mail: no SMTP relay (MSGSVC_SMTP_RELAY)")

// SendNow sends one plain-text mail through the relay at once, from the
// notices' address (sign-in and step-up codes, which cannot wait for the
// notices' queue); ErrNoRelay without a relay.
func (n *Notices) SendNow(ctx context.Context, to, subject, body string) error {
	if n == nil || n.Relay == nil {
		return ErrNoRelay
	}
	host := n.Hostname
	if host == "" {
		host = "localhost"
	}
	from := "notices@" + host
	raw, err := email.ComposeNotice(email.Notice{From: from, To: to, Subject: subject, Body: body,
		MessageID: repo.NewID("eml_", n.Clock.Now()) + "@" + host}, n.Clock.Now())
	if err != nil {
		return err
	}
	return n.Relay.Submit(ctx, from, []string{to}, raw)
}
