package jobs_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestSwitchedOffEndpointNoticeReachesTheRelay: the owner's email about an
// endpoint the service switched off goes out through the relay from the
// periodic sweep, once.
func TestSwitchedOffEndpointNoticeReachesTheRelay(t *testing.T) {
	t.Parallel()
	sink := emailtest.NewSink().Start(t)
	w := resttest.NewWorld(t, nil)
	w.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"email": &email.Adapter{
			Relay: &email.Relay{Addr: sink.Addr, TLS: email.None, Hostname: "mx.msgsvc.test"}, Timeout: 5 * time.Second}}
	})
	rc := resttest.NewReceiver(t, always(410))
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-a", "one")
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Resolver.Webhooks.AttemptDelivery(t.Context(), w.Deliveries(ep.ID, "test_all")[0]["id"].(string)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		jobs.RunSweeps(ctx, jobs.Sweeps{Webhooks: w.Resolver.Webhooks, Idempotency: w.Store, Clock: w.Clock.Now,
			Notices: w.Resolver.Notices}, 20*time.Millisecond)
	}()
	select {
	case <-sink.Arrived():
	case <-time.After(10 * time.Second):
		t.Fatal("no notice at the relay after 10 s")
	}
	time.Sleep(100 * time.Millisecond) // more sweeps: nothing more is sent
	cancel()
	<-done
	mails := sink.Mails()
	if len(mails) != 1 || mails[0].From != "notices@mx.msgsvc.test" || strings.Join(mails[0].To, ",") != "owner@main.test" {
		t.Fatalf("relay got %+v", mails)
	}
	r, err := mail.CreateReader(bytes.NewReader(mails[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := r.Header.Subject()
	part, err := r.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(part.Body)
	if subject != "Webhook endpoint switched off: "+rc.URL || !strings.Contains(body.String(), ep.ID) || !strings.Contains(body.String(), "410") {
		t.Errorf("notice %q:\n%s", subject, body.String())
	}
	emails, err := w.Store.OutboxEmails(t.Context(), "ws_main")
	if err != nil || len(emails) != 1 || emails[0].SentAt == nil {
		t.Errorf("outbox %+v %v", emails, err)
	}
}
