package email

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// countingInbox takes every recipient and counts the mails delivered.
type countingInbox struct{ n int }

func (i *countingInbox) Accepts(context.Context, string) (bool, error) { return true, nil }
func (i *countingInbox) Deliver(context.Context, string, []string, []byte) error {
	i.n++
	return nil
}

// At most MaxMailsReading mails are read into memory at once: the data of
// one more is answered 451 (the sender tries again), and taken once a
// slot is free.
func TestListenerBoundsTheMailsReadAtOnce(t *testing.T) {
	in := &countingInbox{}
	b := backend{inbox: in, limits: newLimits(&Listener{}), dataTimeout: DataTimeout}
	b.limits.reading = MaxMailsReading // mails of other sessions being read
	sess, err := b.NewSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Rcpt("support@acme.test", nil); err != nil {
		t.Fatal(err)
	}
	var reply *smtp.SMTPError
	if err := sess.Data(strings.NewReader("Subject: hi\r\n\r\nx\r\n")); !errors.As(err, &reply) || reply.Code != 451 || in.n != 0 {
		t.Fatalf("with every slot taken: %v, %d delivered; want 451 and nothing", err, in.n)
	}
	b.limits.reading--
	if err := sess.Data(strings.NewReader("Subject: hi\r\n\r\nx\r\n")); err != nil || in.n != 1 || b.limits.reading != MaxMailsReading-1 {
		t.Fatalf("with a slot free: %v, %d delivered, %d slots held; want the mail and its slot given back", err, in.n, b.limits.reading)
	}
}

// A mail past Scan's bounds is refused at its data with a permanent
// 554 5.6.0, and never stored.
func TestListenerRefusesAMailTooComplexToRead(t *testing.T) {
	in := &countingInbox{}
	b := backend{inbox: in, limits: newLimits(&Listener{}), dataTimeout: DataTimeout}
	sess, _ := b.NewSession(nil)
	if err := sess.Rcpt("support@acme.test", nil); err != nil {
		t.Fatal(err)
	}
	var reply *smtp.SMTPError
	err := sess.Data(strings.NewReader(string(partsBomb(MaxParts + 1))))
	if !errors.As(err, &reply) || reply.Code != 554 || reply.EnhancedCode != (smtp.EnhancedCode{5, 6, 0}) || in.n != 0 {
		t.Fatalf("a mail of %d parts: %v, %d delivered; want 554 5.6.0 and nothing", MaxParts+1, err, in.n)
	}
	if err := sess.Data(strings.NewReader(string(partsBomb(MaxParts)))); err != nil || in.n != 1 {
		t.Fatalf("a mail of %d parts: %v, %d delivered; want it", MaxParts, err, in.n)
	}
}

// serve runs a listener on 127.0.0.1 and returns its address.
func serve(t *testing.T, l *Listener) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l.limits = newLimits(l)
	go func() { _ = l.Serve(ctx, ln) }()
	return ln.Addr().String()
}

// client is a raw SMTP connection from a loopback address of its own
// (Linux routes all of 127.0.0.0/8 to the machine).
type client struct {
	net.Conn
	r *bufio.Reader
}

func dialFrom(t *testing.T, from, addr string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a hung test fails, it does not hang
	return &client{Conn: c, r: bufio.NewReader(c)}
}

// reply reads a (last) reply line.
func (c *client) reply(t *testing.T) string {
	t.Helper()
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return "error: " + err.Error()
		}
		if len(line) < 4 || line[3] != '-' {
			return strings.TrimRight(line, "\r\n")
		}
	}
}

// startData greets, names a sender and recipient and starts the data,
// failing unless each step is accepted.
func (c *client) startData(t *testing.T) {
	t.Helper()
	for _, step := range []struct{ send, want string }{{"", "220"}, {"EHLO client.test", "250"},
		{"MAIL FROM:<ada@example.com>", "250"}, {"RCPT TO:<support@acme.test>", "250"}, {"DATA", "354"}} {
		if step.send != "" {
			fmt.Fprintf(c, "%s\r\n", step.send)
		}
		if got := c.reply(t); !strings.HasPrefix(got, step.want) {
			t.Fatalf("%q: %s, want %s", step.send, got, step.want)
		}
	}
}

// Mails trickling in from one address hold at most MaxReadingPerIP of the
// reading slots: another address's mail is still taken, while the global
// limit holds for all.
func TestOneAddressCannotTakeEveryReadingSlot(t *testing.T) {
	in := &countingInbox{}
	l := &Listener{Inbox: in, Hostname: "mx.acme.test"}
	addr := serve(t, l)
	for range MaxMailsReading {
		c := dialFrom(t, "127.0.0.2", addr)
		c.startData(t)
		fmt.Fprintf(c, "Subject: slow\r\n") // and nothing more for now
	}
	// Wait for the server to have started reading each (no timing asserted).
	for l.limits.readingOf("127.0.0.2") < MaxMailsReadingPerIP {
		time.Sleep(5 * time.Millisecond)
	}
	c := dialFrom(t, "127.0.0.3", addr)
	c.startData(t)
	fmt.Fprintf(c, "Subject: hi\r\n\r\nhello\r\n.\r\n")
	if got := c.reply(t); !strings.HasPrefix(got, "250") {
		t.Fatalf("another address's mail, while one address trickles %d: %s; want 250", MaxMailsReading, got)
	}
	if got := l.limits.readingOf("127.0.0.2"); got != MaxMailsReadingPerIP {
		t.Fatalf("the trickling address holds %d slots, want %d", got, MaxMailsReadingPerIP)
	}
	for i := 0; l.limits.readingOf("") < MaxMailsReading; i++ {
		c := dialFrom(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
		c.startData(t)
		fmt.Fprintf(c, "Subject: slow\r\n")
		for l.limits.readingOf(fmt.Sprintf("127.0.1.%d", i+1)) < 1 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	c = dialFrom(t, "127.0.0.4", addr)
	c.startData(t)
	fmt.Fprintf(c, "Subject: hi\r\n\r\nhello\r\n.\r\n")
	if got := c.reply(t); !strings.HasPrefix(got, "451 4.3.2") {
		t.Fatalf("with every slot taken: %s; want 451 4.3.2", got)
	}
}

// A mail whose data does not end within the data timeout, however it
// trickles, gets 421 4.4.2 and its connection is closed.
func TestDataTimeoutClosesATrickler(t *testing.T) {
	in := &countingInbox{}
	addr := serve(t, &Listener{Inbox: in, Hostname: "mx.acme.test", DataTimeout: 300 * time.Millisecond})
	c := dialFrom(t, "127.0.0.5", addr)
	c.startData(t)
	go func() {
		for {
			if _, err := c.Write([]byte("x")); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if got := c.reply(t); !strings.HasPrefix(got, "421 4.4.2") {
		t.Fatalf("a trickler: %s; want 421 4.4.2", got)
	}
	// The client is still writing when the server closes, so the close may
	// arrive as a reset rather than an end of stream.
	if got := c.reply(t); got != "error: EOF" && !strings.Contains(got, "connection reset by peer") {
		t.Fatalf("after the 421: %q; want the connection closed", got)
	}
	if in.n != 0 {
		t.Fatal("the cut mail was delivered")
	}
}

// One address has at most MaxSessionsPerIP connections open: one more is
// answered 421 4.7.0 and closed, and other addresses still connect.
func TestSessionsPerAddress(t *testing.T) {
	l := &Listener{Inbox: &countingInbox{}, Hostname: "mx.acme.test", MaxSessionsPerIP: 2}
	addr := serve(t, l)
	for range 2 {
		if got := dialFrom(t, "127.0.0.6", addr).reply(t); !strings.HasPrefix(got, "220") {
			t.Fatalf("greeting: %s", got)
		}
	}
	c := dialFrom(t, "127.0.0.6", addr)
	if got := c.reply(t); !strings.HasPrefix(got, "421 4.7.0") {
		t.Fatalf("a third connection: %s; want 421 4.7.0", got)
	}
	// The client is still writing when the server closes, so the close may
	// arrive as a reset rather than an end of stream.
	if got := c.reply(t); got != "error: EOF" && !strings.Contains(got, "connection reset by peer") {
		t.Fatalf("after the 421: %q; want the connection closed", got)
	}
	if got := dialFrom(t, "127.0.0.7", addr).reply(t); !strings.HasPrefix(got, "220") {
		t.Fatalf("another address: %s; want 220", got)
	}
}

func TestIPKey(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:25": "192.0.2.7", "[::ffff:192.0.2.7]:25": "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:25": "2001:db8:1:2::/64", "[2001:db8:1:2:ffff::1]:25": "2001:db8:1:2::/64",
	} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := ipKey(a); got != want {
			t.Errorf("ipKey(%s) = %s, want %s", addr, got, want)
		}
	}
}
