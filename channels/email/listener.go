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
	// The limits, each its default when 0: MaxReading mails read at once
	// (MaxMailsReading), MaxReadingPerIP of them from one address
	// (MaxMailsReadingPerIP), MaxSessionsPerIP connections open from one
	// address (MaxSessionsPerIP), and DataTimeout for a mail's whole data
	// (DataTimeout).
	MaxReading, MaxReadingPerIP, MaxSessionsPerIP int
	DataTimeout                                   time.Duration

	limits *limits
}

// Server is the go-smtp server of the listener; Serve also holds each
// address to MaxSessionsPerIP connections.
func (l *Listener) Server(addr string) *smtp.Server {
	if l.limits == nil {
		l.limits = newLimits(l)
	}
	timeout := l.DataTimeout
	if timeout <= 0 {
		timeout = DataTimeout
	}
	s := smtp.NewServer(backend{inbox: l.Inbox, limits: l.limits, dataTimeout: timeout})
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
	ln = limitedListener{Listener: ln, limits: l.limits}
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
	inbox       Inbox
	limits      *limits
	dataTimeout time.Duration
}

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s := &inSession{backend: b, conn: connOf(c)}
	if c != nil {
		s.ip = ipKey(c.Conn().RemoteAddr())
	}
	return s, nil
}

type inSession struct {
	backend
	conn  *limitedConn // nil when driven alone (tests)
	ip    string       // ipKey of the client
	from  string
	rcpts []string
}

var (
	errNoSuchUser = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such recipient here"}
	errTemporary  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure, try again later"}
	errNoRcpt     = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "No valid recipients"}
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

// Data reads a mail within the session's data timeout, in a slot of
// limits, refuses one whose structure is past Scan's bounds, and stores
// the rest.
func (s *inSession) Data(r io.Reader) error {
	release, err := s.limits.startReading(s.ip)
	if err != nil {
		slog.Warn("inbound smtp: too many mails being read at once; answered 451", "ip", s.ip, "reason", err)
		return err
	}
	defer release()
	if s.conn != nil {
		_ = s.conn.SetReadDeadline(time.Now().Add(s.dataTimeout))
	}
	raw, err := io.ReadAll(r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() && s.conn != nil {
		slog.Warn("inbound smtp: data not received in time; connection closed", "ip", s.ip, "timeout", s.dataTimeout)
		s.conn.cut.Store(true)
		return errDataTimeout
	}
	if err != nil {
		return err // go-smtp answers 552 for a mail over SIZE
	}
	if len(s.rcpts) == 0 {
		return errNoRcpt
	}
	if err := Scan(raw); err != nil {
		slog.Info("inbound smtp: mail refused", "ip", s.ip, "err", err)
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Message refused: " + err.Error()}
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
