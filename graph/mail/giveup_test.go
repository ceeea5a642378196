package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
	"github.com/msgsvc/msgsvc/repo"
)

// A mail whose processing panics fails alone: the sweep goes on with the
// other mails, tries it again later and later (RetryAfter·2^n after it was
// received), and gives it up at its MaxMailAttempts-th failure, counted
// and kept stored unprocessed; setting its attempts back to 0 replays it.
func TestPoisonMailIsGivenUp(t *testing.T) {
	api := newLiveEmail(t)
	ctx := t.Context()
	p := *api.Resolver.Mail // a processor of the test's own, its fields set below
	healthy := p.Inbound
	p.Inbound = &inbound.Service{Clock: func() time.Time { panic("a poison mail") }}
	received := api.Clock.Now()
	raw := []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: poison\r\n\r\nhello\r\n")
	for _, m := range []*repo.InboundMail{
		{ID: "im_poison", MailFrom: "ada@example.com", Recipients: []string{"support@verified.test"}, Raw: raw, ReceivedAt: received},
		{ID: "im_bounce", MailFrom: "", Recipients: []string{"bounces+msg_1@verified.test"}, Raw: raw, ReceivedAt: received.Add(time.Millisecond)},
	} {
		if err := api.Store.InsertInboundMail(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	givenUp := map[string]string{"source": "email", "reason": "processing"}
	before := metricstest.Scrape(t).Value("msgsvc_provider_hooks_given_up_total", givenUp)
	sweepAt := func(at time.Time) {
		t.Helper()
		api.Clock.Set(at)
		if err := p.Sweep(ctx, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	attempts := func() *repo.InboundMail {
		t.Helper()
		m, err := api.Store.LockInboundMail(ctx, "im_poison")
		if err != nil {
			t.Fatalf("the poison mail: %v", err)
		}
		return m
	}

	sweepAt(received.Add(6 * time.Second))
	if _, err := api.Store.LockInboundMail(ctx, "im_bounce"); err != repo.ErrNotFound {
		t.Fatalf("the mail after the poison one is not processed: %v", err)
	}
	for n := 1; n < mail.MaxMailAttempts; n++ {
		if got := attempts().Attempts; got != n {
			t.Fatalf("%d attempts, want %d", got, n)
		}
		due := received.Add(mail.RetryAfter << n)
		sweepAt(due.Add(-time.Millisecond))
		if got := attempts().Attempts; got != n {
			t.Fatalf("tried again before its time: %d attempts after %d", got, n)
		}
		sweepAt(due)
	}
	m := attempts()
	if m.Attempts != mail.MaxMailAttempts || m.LastError == nil || !strings.Contains(*m.LastError, "panicked: a poison mail") ||
		string(m.Raw) != string(raw) {
		t.Fatalf("given up: %d attempts, last error %v, raw kept %v", m.Attempts, m.LastError, string(m.Raw) == string(raw))
	}
	if got := metricstest.Scrape(t).Value("msgsvc_provider_hooks_given_up_total", givenUp) - before; got != 1 {
		t.Fatalf("given up counted %v times", got)
	}
	// Given up: neither the sweep nor its job tries it again.
	sweepAt(received.Add(72 * time.Hour))
	if err := p.Process(ctx, "im_poison"); err != nil {
		t.Fatal(err)
	}
	if got := attempts().Attempts; got != mail.MaxMailAttempts {
		t.Fatalf("tried again after it was given up: %d attempts", got)
	}

	// The replay docs/email.md gives, once the cause is fixed.
	if _, err := api.Store.DB.ExecContext(ctx, `UPDATE inbound_mails SET attempts = 0 WHERE id = 'im_poison'`); err != nil {
		t.Fatal(err)
	}
	p.Inbound = healthy
	sweepAt(received.Add(73 * time.Hour))
	if _, err := api.Store.LockInboundMail(ctx, "im_poison"); err != repo.ErrNotFound {
		t.Fatalf("the replayed mail is not processed: %v", err)
	}
	conversationOf(t, api, "ada@example.com")
}
