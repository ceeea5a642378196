package mail_test

import (
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/mail"
)

// BenchmarkInboundMailProcessing processes small inbound mails as the
// worker's jobs do, one at a time and 10 at once (a worker's task slots), each from a sender
// of its own, so each is a conversation of its own: b.N mails (at least
// 300) are stored first as the SMTP listener stores them
// (mail.Inbox.Deliver), then turned into messages and message.received
// events (mail.Processor.Process). mails/s is the processing rate alone,
// without the queue's round trips.
func BenchmarkInboundMailProcessing(b *testing.B) {
	for _, workers := range []int{1, 10} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchProcessing(b, workers) })
	}
}

func benchProcessing(b *testing.B, workers int) {
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.Cleanup(func() { slog.SetDefault(logger) })
	api := newLiveEmail(b)
	inbox, proc := api.Resolver.Inbox, api.Resolver.Mail
	ctx := b.Context()
	n := max(b.N, 300)
	for i := range n {
		from := fmt.Sprintf("sender-%d@example.com", i)
		raw := fmt.Sprintf("From: <%s>\r\nTo: <support@verified.test>\r\nSubject: Question %d\r\nMessage-ID: <bench-%d@example.com>\r\n\r\nHello, a short question.\r\n", from, i, i)
		if err := inbox.Deliver(ctx, from, []string{"support@verified.test"}, []byte(raw)); err != nil {
			b.Fatal(err)
		}
	}
	ids, err := api.Store.PendingInboundMails(ctx, api.Clock.Now().Add(time.Hour), api.Clock.Now(), mail.RetryAfter, mail.MaxMailAttempts, n)
	if err != nil || len(ids) != n {
		b.Fatalf("%d of %d mails stored: %v", len(ids), n, err)
	}
	work := make(chan string)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			for id := range work {
				if err := proc.Process(ctx, id); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "mails/s")
	var messages int
	if err := api.Store.DB.Get(&messages, `SELECT count(*) FROM messages WHERE channel = 'email' AND direction = 'inbound'`); err != nil || messages < n {
		b.Fatalf("%d inbound email messages for %d mails (%v)", messages, n, err)
	}
}
