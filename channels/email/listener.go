package email

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// MaxMessageBytes is the inbound limit, advertised with SIZE.
const MaxMessageBytes = 25 << 20

// MaxMailsReading bounds the mails a listener reads into memory at once
// (each up to MaxMessageBytes); the data of one more is answered 451, and
// its sender tries again later.
const MaxMailsReading = 16

// Inbox is msgsvc behind the listener: which recipients it takes, and
// where an accepted mail is stored before the 250.
type Inbox interface {
	// Accepts says whether rcpt is an account's address or a bounces+
	// address of a verified domain.
	Accepts(ctx context.Context, rcpt string) (bool, error)
	// Deliver stores the mail durably; only then does the client get 250.
	Deliver(ctx context.Context, from string, rcpts []string, raw []byte) error
}

// Listener is the inbound SMTP server (MSGSVC_SMTP_ADDR).
type Listener struct {
	Inbox    Inbox
	Hostname string
	// TLSConfig, when set, offers STARTTLS (RFC 3207) with its
	// certificate, so that senders that can encrypt do; mail is still
	// taken in plain text from those that cannot (an MX must).
	TLSConfig *tls.Config
}

// Server is the go-smtp server of the listener.
func (l *Listener) Server(addr string) *smtp.Server {
	s := smtp.NewServer(backend{inbox: l.Inbox, reading: make(chan struct{}, MaxMailsReading)})
	s.Addr = addr
	s.Domain = l.Hostname
	s.MaxMessageBytes = MaxMessageBytes
	s.MaxRecipients = 50
	s.MaxLineLength = 64 << 10 // HTML mail often has long lines
	s.ReadTimeout = 2 * time.Minute
	s.WriteTimeout = 2 * time.Minute
	s.EnableSMTPUTF8 = true
	s.TLSConfig = l.TLSConfig
	return s
}

// Serve accepts mail on ln until ctx ends.
func (l *Listener) Serve(ctx context.Context, ln net.Listener) error {
	s := l.Server(ln.Addr().String())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(shutdown); err != nil {
			_ = s.Close()
		}
	}()
	err := s.Serve(ln)
	if errors.Is(err, smtp.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

type backend struct {
	inbox Inbox
	// reading holds a slot for each mail being read.
	reading chan struct{}
}

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &inSession{inbox: b.inbox, reading: b.reading}, nil
}

type inSession struct {
	inbox   Inbox
	reading chan struct{}
	from    string
	rcpts   []string
}

var (
	errNoSuchUser = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such recipient here"}
	errTemporary  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure, try again later"}
	errNoRcpt     = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "No valid recipients"}
	errBusy       = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Too busy, try again later"}
)

func (s *inSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from, s.rcpts = from, nil
	return nil
}

func (s *inSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if slices.ContainsFunc(s.rcpts, func(r string) bool { return strings.EqualFold(r, to) }) {
		return nil // named twice, delivered once
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := s.inbox.Accepts(ctx, to)
	if err != nil {
		slog.Warn("inbound smtp: recipient check", "err", err)
		return errTemporary
	}
	if !ok {
		return errNoSuchUser
	}
	s.rcpts = append(s.rcpts, to)
	return nil
}

func (s *inSession) Data(r io.Reader) error {
	select {
	case s.reading <- struct{}{}:
		defer func() { <-s.reading }()
	default:
		slog.Warn("inbound smtp: too many mails being read at once; answered 451", "limit", cap(s.reading))
		return errBusy
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err // go-smtp answers 552 for a mail over SIZE
	}
	if len(s.rcpts) == 0 {
		return errNoRcpt
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.inbox.Deliver(ctx, s.from, s.rcpts, raw); err != nil {
		slog.Warn("inbound smtp: store", "err", err)
		return errTemporary
	}
	return nil
}

func (s *inSession) Reset()        { s.from, s.rcpts = "", nil }
func (s *inSession) Logout() error { return nil }
