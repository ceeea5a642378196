package mail_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// BenchmarkInboundSMTPToWebhook is inbound email end to end: b.N small
// mails, each from a sender of its own, submitted over SMTP to the inbound
// listener, stored and queued by it, processed by a worker's asynq server
// (10 task slots, the fan-out attempting due deliveries at once, as msgsvc
// runs it), and delivered as message.received to an httptest endpoint.
// Every mail must arrive exactly once. p50-ms and p99-ms are the lags from
// a mail's submission to its event's arrival.
//
// rate100 submits 100 mails a second over 8 SMTP connections; a mail's
// submission is its scheduled time, so a slow listener shows as lag.
// max submits as fast as 16 SMTP connections go; a mail's submission is
// the start of its SMTP transaction, and mails/s is b.N over the time from
// the first submission to the last arrival.
func BenchmarkInboundSMTPToWebhook(b *testing.B) {
	b.Run("rate100", func(b *testing.B) { benchSMTPFlood(b, 8, 100) })
	b.Run("max", func(b *testing.B) { benchSMTPFlood(b, 16, 0) })
}

// floodMail is the n-th mail of a flood and when it counts as submitted.
type floodMail struct {
	n  int
	at time.Time
}

func benchSMTPFlood(b *testing.B, conns, rate int) {
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.Cleanup(func() { slog.SetDefault(logger) })
	w := resttest.NewWorld(b, nil)
	startMailWorker(w)
	addr := listenQueued(b, w)
	arrivals := receiveFlood(w)
	n := b.N
	submitted := make([]time.Time, n)
	work := make(chan floodMail, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range conns {
		wg.Go(func() { submitMails(b, addr, work, submitted, rate == 0) })
	}
	start := time.Now()
	if rate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		for i := range n {
			at := <-tick.C
			work <- floodMail{i, at}
		}
		tick.Stop()
	} else {
		for i := range n {
			work <- floodMail{n: i}
		}
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		return
	}
	got := arrivals.wait(b, n, 2*time.Minute)
	b.StopTimer()
	lags := make([]time.Duration, n)
	last := start
	for i, at := range got {
		lags[i] = at.Sub(submitted[i])
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lags[len(lags)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(n)/last.Sub(start).Seconds(), "mails/s")
}

// startMailWorker starts a worker process's asynq servers for the world's
// queues (its mail queue's too) with the inbound mail and webhook handlers, its fan-out attempting
// what it finds due at once (webhook.Config.Here), as msgsvc's worker does.
func startMailWorker(w *resttest.World) {
	ctx, stop := context.WithCancel(context.Background())
	w.T.Cleanup(stop)
	w.Reconfigure(func(c *resttest.Config) { c.Webhooks.Here = ctx })
	srv := jobs.NewServerOn(w.Redis, 10, w.Queue)
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{Webhooks: w.Resolver.Webhooks, Mail: w.Resolver.Mail})
	mux.HandleFunc(jobs.TypeAIDispatch, func(context.Context, *asynq.Task) error { return nil })
	if err := srv.Start(mux); err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(srv.Shutdown)
	w.T.Cleanup(func() { resttest.DropQueue(w.T, jobs.MailQueue(w.Queue)) })
	mailSrv := jobs.NewMailServerOn(w.Redis, jobs.MailConcurrency, w.Queue)
	if err := mailSrv.Start(mux); err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(mailSrv.Shutdown)
}

// listenQueued starts the inbound listener on loopback, queuing each stored
// mail's processing on the world's queue.
func listenQueued(t testing.TB, w *resttest.World) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l := &email.Listener{Inbox: w.Resolver.Inbox, Hostname: "mx.msgsvc.test"}
	go func() { _ = l.Serve(ctx, ln) }()
	return ln.Addr().String()
}

// submitMails sends the mails of work over one SMTP connection, each in a
// transaction of its own, and records when each was submitted (at the
// transaction's start when now, else its scheduled time).
func submitMails(t testing.TB, addr string, work <-chan floodMail, submitted []time.Time, now bool) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Error(err)
		return
	}
	c, err := smtp.NewClient(conn, "mx.msgsvc.test")
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	for m := range work {
		if now {
			m.at = time.Now()
		}
		submitted[m.n] = m.at
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		if err := sendFloodMail(c, m.n); err != nil {
			t.Errorf("mail %d: %v", m.n, err)
			return
		}
	}
	_ = c.Quit()
}

func sendFloodMail(c *smtp.Client, n int) error {
	from := fmt.Sprintf("flood-%d@example.com", n)
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt("support@verified.test"); err != nil {
		return err
	}
	wc, err := c.Data()
	if err != nil {
		return err
	}
	raw := fmt.Sprintf("From: <%s>\r\nTo: <support@verified.test>\r\nSubject: Question %d\r\nMessage-ID: <flood-%d@example.com>\r\n\r\nHello, a short question.\r\n", from, n, n)
	if _, err := wc.Write([]byte(raw)); err != nil {
		return err
	}
	return wc.Close()
}

// floodArrivals records the first arrival of each mail's message.received,
// by the mail's number, and counts every other delivery that names a mail.
type floodArrivals struct {
	mu    sync.Mutex
	first map[int]time.Time
	extra []string
}

// receiveFlood starts an endpoint for message.received that records the
// flood's arrivals.
func receiveFlood(w *resttest.World) *floodArrivals {
	a := &floodArrivals{first: map[int]time.Time{}}
	rc := resttest.NewReceiver(w.T, func(_ int, r resttest.Request) int {
		at := time.Now()
		mail, _ := r.Data()["email"].(map[string]any)
		from, _ := mail["from"].(string)
		var n int
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, err := fmt.Sscanf(from, "flood-%d@example.com", &n); err != nil {
			a.extra = append(a.extra, fmt.Sprintf("%s %s from %q", r.Type(), r.ID(), from))
		} else if _, seen := a.first[n]; seen {
			a.extra = append(a.extra, fmt.Sprintf("mail %d again (%s)", n, r.ID()))
		} else {
			a.first[n] = at
		}
		return 200
	})
	w.CreateEndpoint(rc.URL, map[string]any{"events": []string{"message.received"}})
	return a
}

// wait waits up to timeout for n mails' arrivals, fails on a missing,
// repeated or unknown one, and returns the arrivals by mail number.
func (a *floodArrivals) wait(t testing.TB, n int, timeout time.Duration) []time.Time {
	deadline := time.Now().Add(timeout)
	for {
		a.mu.Lock()
		got := len(a.first)
		a.mu.Unlock()
		if got >= n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d mails arrived within %v", got, n, timeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // room for a late duplicate to show
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.extra) > 0 || len(a.first) != n {
		t.Fatalf("%d distinct mails of %d arrived; besides: %v", len(a.first), n, a.extra)
	}
	out := make([]time.Time, n)
	for i := range n {
		out[i] = a.first[i]
	}
	return out
}
