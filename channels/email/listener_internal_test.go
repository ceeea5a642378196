package email

import (
	"context"
	"errors"
	"strings"
	"testing"

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
	b := backend{inbox: in, reading: make(chan struct{}, MaxMailsReading)}
	for range MaxMailsReading {
		b.reading <- struct{}{} // mails of other sessions being read
	}
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
	<-b.reading
	if err := sess.Data(strings.NewReader("Subject: hi\r\n\r\nx\r\n")); err != nil || in.n != 1 || len(b.reading) != MaxMailsReading-1 {
		t.Fatalf("with a slot free: %v, %d delivered, %d slots held; want the mail and its slot given back", err, in.n, len(b.reading))
	}
}
