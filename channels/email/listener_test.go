package email_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
)

// A recipient the sender names twice (in any case) gets the mail once:
// without a Message-ID nothing else would tell the second copy apart.
func TestListenerDeliversARecipientNamedTwiceOnce(t *testing.T) {
	in := inbox{got: make(chan []byte, 1), rcpts: make(chan []string, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = (&email.Listener{Inbox: in, Hostname: "mx.acme.test"}).Serve(ctx, ln) }()
	relay := &email.Relay{Addr: ln.Addr().String(), TLS: email.None, Hostname: "sender.example.com"}
	submit, cancelSubmit := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelSubmit()
	if err := relay.Submit(submit, "ada@example.com", []string{"support@acme.test", "SUPPORT@acme.test", "sales@acme.test"},
		[]byte("Subject: hi\r\n\r\nno Message-ID\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := <-in.rcpts; !slices.Equal(got, []string{"support@acme.test", "sales@acme.test"}) {
		t.Fatalf("delivered to %q; want each recipient once", got)
	}
}
