package mail_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
	"github.com/msgsvc/msgsvc/repo"
)

// An attempt cut short by a shutdown (its ctx cancelled) is no failure of
// the mail: its attempts, last error and the failure counter stay as they
// were, and the next attempt processes it.
func TestAttemptCutShortIsNotCounted(t *testing.T) {
	api := newLiveEmail(t)
	p := *api.Resolver.Mail // a processor of the test's own, its fields set below
	if err := api.Store.InsertInboundMail(t.Context(), &repo.InboundMail{ID: "im_cut", MailFrom: "ada@example.com",
		Recipients: []string{"support@verified.test"}, ReceivedAt: api.Clock.Now(),
		Raw: []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: cut\r\n\r\nhello\r\n")}); err != nil {
		t.Fatal(err)
	}
	failures := map[string]string{"source": "email"}
	before := metricstest.Scrape(t).Value("msgsvc_provider_hook_failures_total", failures)
	ctx, cancel := context.WithCancel(t.Context())
	healthy := p.Inbound
	cut := *healthy
	cut.Clock = func() time.Time { cancel(); return api.Clock.Now() } // the shutdown comes mid-mail
	p.Inbound = &cut
	if err := p.Process(ctx, "im_cut"); err == nil {
		t.Fatal("an attempt cut short succeeded")
	}
	if got := metricstest.Scrape(t).Value("msgsvc_provider_hook_failures_total", failures) - before; got != 0 {
		t.Fatalf("the cut attempt counted %v failures", got)
	}
	// The cancel reaches Postgres asynchronously: the transaction storing
	// the mail either committed before it (the mail is processed) or did
	// not (the mail waits, uncounted, for its next attempt). FOR UPDATE
	// waits for that transaction to end.
	var processed bool
	var attempts int
	var lastError *string
	if err := api.Store.DB.QueryRow(`SELECT processed_at IS NOT NULL, attempts, last_error FROM inbound_mails
		WHERE id = 'im_cut' FOR UPDATE`).Scan(&processed, &attempts, &lastError); err != nil {
		t.Fatal(err)
	}
	if !processed {
		if attempts != 0 || lastError != nil {
			t.Fatalf("after the cut attempt: attempts %d, last error %v; want 0 and none", attempts, lastError)
		}
		p.Inbound = healthy
		if err := p.Process(t.Context(), "im_cut"); err != nil {
			t.Fatal(err)
		}
	}
	conversationOf(t, api, "ada@example.com")
}

// A mail put back by an operator and failed again is tried, by its job as
// by the sweep, RetryAfter·2 after it was put back, not after it was
// received.
func TestProcessWaitsForTheRetriedMailsNextTry(t *testing.T) {
	api := newLiveEmail(t)
	ctx := t.Context()
	p := api.Resolver.Mail
	received := api.Clock.Now()
	failMail(t, api, &repo.InboundMail{ID: "im_wait", MailFrom: "ada@example.com", Recipients: []string{"support@verified.test"},
		Raw: []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: wait\r\n\r\nhello\r\n"), ReceivedAt: received},
		mail.MaxMailAttempts)
	retried := received.Add(30 * time.Hour)
	if _, err := api.Store.RetryInboundMail(ctx, "im_wait", mail.MaxMailAttempts, retried); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store.FailInboundMail(ctx, "im_wait", "failed again"); err != nil {
		t.Fatal(err)
	}
	due := retried.Add(2 * mail.RetryAfter)
	api.Clock.Set(due.Add(-time.Millisecond))
	if err := p.Process(ctx, "im_wait"); err != nil {
		t.Fatal(err)
	}
	if m, err := api.Store.LockInboundMail(ctx, "im_wait"); err != nil || m.Attempts != 1 {
		t.Fatalf("tried before its time: %+v %v", m, err)
	}
	api.Clock.Set(due)
	if err := p.Process(ctx, "im_wait"); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store.LockInboundMail(ctx, "im_wait"); err != repo.ErrNotFound {
		t.Fatalf("not processed when due: %v", err)
	}
}
