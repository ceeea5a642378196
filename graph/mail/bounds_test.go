package mail_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/repo"
)

// storeMail stores raw as the listener would, from ada@example.com to
// support@verified.test.
func storeMail(t *testing.T, api *liveEmail, id string, raw []byte) {
	t.Helper()
	if err := api.Store.InsertInboundMail(t.Context(), &repo.InboundMail{ID: id, MailFrom: "ada@example.com",
		Recipients: []string{"support@verified.test"}, ReceivedAt: api.Clock.Now(), Raw: raw}); err != nil {
		t.Fatal(err)
	}
}

// givenUp fails unless the mail id is stored unprocessed, given up, with
// a last error holding why, and no conversation came of it.
func givenUp(t *testing.T, api *liveEmail, id, why string) {
	t.Helper()
	m, err := api.Store.LockInboundMail(t.Context(), id)
	if err != nil || m.Attempts != mail.MaxMailAttempts || m.LastError == nil || !strings.Contains(*m.LastError, why) {
		t.Fatalf("the mail: %+v %v; want it given up with %q", m, err, why)
	}
	if got := list(api.Do("GET", "/v1/conversations?channel=email", "live_all", nil)); len(got) != 0 {
		t.Fatalf("%d conversations came of it", len(got))
	}
}

// A stored mail past Scan's bounds (stored before the listener scanned
// mail, or by another way in) is not read: it is given up at once with
// the reason, never tried again.
func TestMailPastTheScanBoundsIsGivenUpAtOnce(t *testing.T) {
	api := newLiveEmail(t)
	var raw strings.Builder
	raw.WriteString("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: bomb\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n")
	for range email.MaxParts + 1 {
		raw.WriteString("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n")
	}
	raw.WriteString("--b--\r\n")
	storeMail(t, api, "im_bomb", []byte(raw.String()))
	p := api.Resolver.Mail
	if err := p.Process(t.Context(), "im_bomb"); err != nil {
		t.Fatal(err)
	}
	givenUp(t, api, "im_bomb", fmt.Sprintf("more than %d MIME parts", email.MaxParts))
	api.Clock.Set(api.Clock.Now().Add(48 * time.Hour))
	if err := p.Sweep(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	givenUp(t, api, "im_bomb", "MIME parts")
}

// openTransactions counts the sessions of the test's database idle in a
// transaction.
func openTransactions(t *testing.T, api *liveEmail) int {
	var n int
	if err := api.Store.DB.Get(&n, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`); err != nil {
		t.Error(err)
	}
	return n
}

// A mail is read (parsed) while no transaction is open, so a slow one
// holds back no one's transactions nor the event stream's horizon.
func TestNoTransactionIsOpenWhileAMailIsRead(t *testing.T) {
	api := newLiveEmail(t)
	// The check sees a transaction held open.
	tx, err := api.Store.DB.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if n := openTransactions(t, api); n != 1 {
		t.Fatalf("with a transaction held open the check sees %d", n)
	}
	_ = tx.Rollback()

	storeMail(t, api, "im_read", []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: hi\r\n\r\nhello\r\n"))
	p := *api.Resolver.Mail // a processor of the test's own, its fields set below
	read := 0
	p.Parse = func(raw []byte) *email.Parsed {
		read++
		if n := openTransactions(t, api); n != 0 {
			t.Errorf("%d transactions open while the mail is read", n)
		}
		return email.Parse(raw)
	}
	if err := p.Process(t.Context(), "im_read"); err != nil || read != 1 {
		t.Fatalf("process: %v, read %d times", err, read)
	}
	conversationOf(t, api, "ada@example.com")
}

// A mail whose reading outlasts the budget is given up at once with the
// reason, not tried again for as long.
func TestMailOverItsBudgetIsGivenUpAtOnce(t *testing.T) {
	api := newLiveEmail(t)
	storeMail(t, api, "im_slow", []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: hi\r\n\r\nhello\r\n"))
	p := *api.Resolver.Mail // a processor of the test's own, its fields set below
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	p.Parse = func(raw []byte) *email.Parsed { <-stuck; return email.Parse(raw) }
	p.Budget = 20 * time.Millisecond
	if err := p.Process(t.Context(), "im_slow"); err != nil {
		t.Fatal(err)
	}
	givenUp(t, api, "im_slow", "took longer than 20ms")
}

// While this process reads a mail (its job), the sweep does not read it
// too: its Process leaves it alone.
func TestAMailIsReadOnceAtATime(t *testing.T) {
	api := newLiveEmail(t)
	storeMail(t, api, "im_once", []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: hi\r\n\r\nhello\r\n"))
	job, sweep := *api.Resolver.Mail, *api.Resolver.Mail // two processors, as a job and a sweep are
	reading, release := make(chan struct{}), make(chan struct{})
	job.Parse = func(raw []byte) *email.Parsed { close(reading); <-release; return email.Parse(raw) }
	sweep.Parse = func([]byte) *email.Parsed {
		t.Error("the sweep read the mail the job is reading")
		return &email.Parsed{}
	}
	done := make(chan error)
	go func() { done <- job.Process(t.Context(), "im_once") }()
	<-reading
	if err := sweep.Process(t.Context(), "im_once"); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	conversationOf(t, api, "ada@example.com")
}
