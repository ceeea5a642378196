// Package emailtest is a stand-in for an SMTP relay: a go-smtp server on
// loopback that records every mail it accepts and answers scripted refusals,
// as a real relay would, so tests assert the exact envelope and bytes.
package emailtest

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mail is one accepted mail.
type Mail struct {
	From string
	To   []string
	Data []byte
}

// Sink is the relay stand-in.
type Sink struct {
	Addr string
	// Server is the go-smtp server (tests may set TLSConfig before Start).
	Server *smtp.Server

	mu      sync.Mutex
	mails   []Mail
	rcpt    map[string]*smtp.SMTPError
	data    *smtp.SMTPError
	drop    bool
	users   map[string]string
	authed  []string
	arrived chan struct{}
}

// NewSink makes a relay stand-in; configure it, then Start.
func NewSink() *Sink {
	s := &Sink{rcpt: map[string]*smtp.SMTPError{}, arrived: make(chan struct{}, 1000)}
	s.Server = smtp.NewServer(s)
	s.Server.Domain = "relay.test"
	s.Server.AllowInsecureAuth = false
	return s
}

// Start listens on loopback until the test ends.
func (s *Sink) Start(t testing.TB) *Sink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go func() { _ = s.Server.Serve(l) }()
	t.Cleanup(func() { _ = s.Server.Close() })
	return s
}

// StartTLS offers STARTTLS with cert.
func (s *Sink) StartTLS(cert tls.Certificate) {
	s.Server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
}

// RequireAuth makes AUTH PLAIN with user and password necessary.
func (s *Sink) RequireAuth(user, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = map[string]string{user: password}
}

// RefuseRcpt answers the RCPT of address with the given reply.
func (s *Sink) RefuseRcpt(address string, code int, enhanced smtp.EnhancedCode, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcpt[strings.ToLower(address)] = &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: text}
}

// RefuseData answers the end of DATA with the given reply (nil: accept).
func (s *Sink) RefuseData(e *smtp.SMTPError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = e
}

// DropAfterData makes the relay read a whole mail, keep it, and close the
// connection without a reply: the sender cannot know it was taken.
func (s *Sink) DropAfterData() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop = true
}

// Mails returns the accepted mails so far.
func (s *Sink) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// Arrived signals each accepted mail.
func (s *Sink) Arrived() <-chan struct{} { return s.arrived }

// Authenticated lists the users that authenticated.
func (s *Sink) Authenticated() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.authed...)
}

// NewSession implements smtp.Backend.
func (s *Sink) NewSession(c *smtp.Conn) (smtp.Session, error) { return &session{sink: s, conn: c}, nil }

type session struct {
	sink   *Sink
	conn   *smtp.Conn
	authed bool
	mail   Mail
}

func (ss *session) AuthMechanisms() []string { return []string{"PLAIN"} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		ss.sink.mu.Lock()
		defer ss.sink.mu.Unlock()
		if want, ok := ss.sink.users[user]; !ok || want != pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		ss.authed = true
		ss.sink.authed = append(ss.sink.authed, user)
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.sink.mu.Lock()
	needAuth := ss.sink.users != nil
	ss.sink.mu.Unlock()
	if needAuth && !ss.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	ss.mail = Mail{From: from}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.sink.mu.Lock()
	refusal := ss.sink.rcpt[strings.ToLower(to)]
	ss.sink.mu.Unlock()
	if refusal != nil {
		return refusal
	}
	ss.mail.To = append(ss.mail.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.sink.mu.Lock()
	defer ss.sink.mu.Unlock()
	if ss.sink.data != nil {
		return ss.sink.data
	}
	ss.mail.Data = b
	ss.sink.mails = append(ss.sink.mails, ss.mail)
	select {
	case ss.sink.arrived <- struct{}{}:
	default:
	}
	if ss.sink.drop {
		_ = ss.conn.Conn().Close()
		return errors.New("emailtest: dropped after DATA")
	}
	return nil
}

func (ss *session) Reset()        { ss.mail = Mail{} }
func (ss *session) Logout() error { return nil }
