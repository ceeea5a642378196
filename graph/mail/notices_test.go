package mail_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
	"github.com/msgsvc/msgsvc/channels/email"
	msgmail "github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// outboxRow reads a notice's row.
func outboxRow(t *testing.T, api *liveEmail, id string) repo.OutboxEmail {
	t.Helper()
	rows, err := api.Store.OutboxEmails(t.Context(), "ws_main")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no outbox email %s", id)
	return repo.OutboxEmail{}
}

// TestOwnerNoticesGoThroughTheRelay: a notice in outbox_emails goes to the
// relay; a refusal is retried on the backoff schedule until the relay takes
// it, then it is sent once.
func TestOwnerNoticesGoThroughTheRelay(t *testing.T) {
	api := newLiveEmail(t)
	api.Reconfigure(func(c *resttest.Config) { c.Adapters["email"].(*email.Adapter).Relay.Hostname = "mx.msgsvc.test" })
	notices := api.Resolver.Notices
	ctx := t.Context()
	now := api.Clock.Now()
	n := &repo.OutboxEmail{ID: "eml_notice1", WorkspaceID: "ws_main", ToAddress: "owner@example.com",
		Subject: "Webhook endpoint switched off: https://hooks.example.com/x", Body: "We switched off your endpoint. Café.\n", CreatedAt: now}
	if err := api.Store.InsertOutboxEmail(ctx, n); err != nil {
		t.Fatal(err)
	}

	api.Sink.RefuseData(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	row := outboxRow(t, api, n.ID)
	if row.SentAt != nil || row.Attempts != 1 || row.NextAttemptAt == nil || !row.NextAttemptAt.Equal(api.Clock.Now().Add(30*time.Second)) ||
		row.LastError == nil || !strings.Contains(*row.LastError, "451") {
		t.Fatalf("after a refusal: %+v", row)
	}
	api.Sink.RefuseData(nil)
	api.Clock.Advance(29 * time.Second)
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(api.Sink.Mails()) != 0 || outboxRow(t, api, n.ID).Attempts != 1 {
		t.Fatal("a notice was retried before its time")
	}
	api.Clock.Advance(time.Second)
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	mails := api.Sink.Mails()
	if len(mails) != 1 || mails[0].From != "notices@mx.msgsvc.test" || strings.Join(mails[0].To, ",") != "owner@example.com" {
		t.Fatalf("relay got %+v", mails)
	}
	r, err := mail.CreateReader(bytes.NewReader(mails[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := r.Header.Subject()
	id, _ := r.Header.MessageID()
	from, _ := r.Header.AddressList("From")
	to, _ := r.Header.AddressList("To")
	date, _ := r.Header.Date()
	if subject != n.Subject || id != "eml_notice1@mx.msgsvc.test" || len(from) != 1 || from[0].Address != "notices@mx.msgsvc.test" ||
		len(to) != 1 || to[0].Address != "owner@example.com" || !date.Equal(api.Clock.Now()) ||
		r.Header.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("headers:\n%s", mails[0].Data)
	}
	part, err := r.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(part.Body) // SMTP carries CRLF line ends
	if ct, _, _ := part.Header.(*mail.InlineHeader).ContentType(); ct != "text/plain" || strings.ReplaceAll(string(body), "\r\n", "\n") != n.Body {
		t.Errorf("body %s %q", ct, body)
	}
	row = outboxRow(t, api, n.ID)
	if row.SentAt == nil || !row.SentAt.Equal(api.Clock.Now()) || row.Attempts != 2 || row.LastError != nil {
		t.Errorf("after sending: %+v", row)
	}
	api.Clock.Advance(time.Hour)
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(api.Sink.Mails()) != 1 {
		t.Errorf("a sent notice went out again: %d mails", len(api.Sink.Mails()))
	}
}

// TestNoticeClaimedByADeadSenderIsSent: a sender that claimed a notice and
// died leaves it for its lease; then another sends it.
func TestNoticeClaimedByADeadSenderIsSent(t *testing.T) {
	api := newLiveEmail(t)
	notices := api.Resolver.Notices
	ctx := t.Context()
	now := api.Clock.Now()
	if err := api.Store.InsertOutboxEmail(ctx, &repo.OutboxEmail{ID: "eml_notice2", WorkspaceID: "ws_main",
		ToAddress: "owner@example.com", Subject: "s", Body: "b", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	// The dead sender: it claimed the notice and never came back.
	claimed, err := api.Store.ClaimOutboxEmails(ctx, now, now.Add(time.Minute), 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim %v %v", claimed, err)
	}
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(api.Sink.Mails()) != 0 {
		t.Fatal("a claimed notice was sent inside its lease")
	}
	api.Clock.Advance(time.Minute)
	if err := notices.SendNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(api.Sink.Mails()) != 1 || outboxRow(t, api, "eml_notice2").SentAt == nil {
		t.Fatalf("after the lease: %d mails", len(api.Sink.Mails()))
	}
}

func TestNoticeBackoffIsBounded(t *testing.T) {
	var got []time.Duration
	for _, refused := range []int{1, 2, 3, 7, 8, 50, 1000} {
		got = append(got, msgmail.NoticeRetryAfter(refused))
	}
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 32 * time.Minute, time.Hour, time.Hour, time.Hour}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("after %d refusals wait %v, want %v", []int{1, 2, 3, 7, 8, 50, 1000}[i], got[i], want[i])
		}
	}
}
