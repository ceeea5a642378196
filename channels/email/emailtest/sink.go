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
	// mechanisms are the AUTH mechanisms offered (PLAIN when nil).
	mechanisms []string
	// refuseHello answers EHLO/HELO of that name with its reply.
	refuseHello map[string]*smtp.SMTPError
	hellos      []string
	// stall: MAIL is never answered until the test ends.
	stall chan struct{}
	// transcripts record each connection (transcript.go).
	transcripts []*transcript
	// sesID: the relay acts as Amazon SES (ActAsSES).
	sesID string
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
	go func() { _ = s.Server.Serve(recordingListener{Listener: l, sink: s}) }()
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

// OfferAuth sets the AUTH mechanisms the relay offers: PLAIN, LOGIN
// (Microsoft 365 offers LOGIN and XOAUTH2, no PLAIN: smtp.office365.com
// answers AUTH PLAIN with 504 5.7.4) and XOAUTH2 (whose token is checked
// as the password).
func (s *Sink) OfferAuth(mechanisms ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mechanisms = mechanisms
}

// RefuseHello answers EHLO (or HELO) naming host with the reply, as
// smtp-relay.gmail.com answers "EHLO localhost" with 421 4.7.0.
func (s *Sink) RefuseHello(host string, code int, enhanced smtp.EnhancedCode, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuseHello == nil {
		s.refuseHello = map[string]*smtp.SMTPError{}
	}
	s.refuseHello[strings.ToLower(host)] = &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: text}
}

// Hellos are the names clients gave in EHLO/HELO, in order.
func (s *Sink) Hellos() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hellos...)
}

// StallAfterHello answers EHLO, then never answers MAIL until the test
// ends: a relay that hangs mid-transaction.
func (s *Sink) StallAfterHello(t testing.TB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stall = make(chan struct{})
	t.Cleanup(func() { close(s.stall) })
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

// ActAsSES makes the relay behave as Amazon SES's SMTP interface does with
// an accepted mail: it replaces the Message-ID with <{id}@email.amazonses.com>
// and the Date with its own ("If you provide a Message-ID header, Amazon
// SES overrides the header with its own value", and likewise Date:
// docs.aws.amazon.com/ses/latest/dg/header-fields.html), keeps the mail so
// changed, and answers the data "250 Ok {id}" (Successful delivery: "250 Ok
// MessageID",
// docs.aws.amazon.com/ses/latest/DeveloperGuide/smtp-response-codes.html).
func (s *Sink) ActAsSES(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sesID = id
}

// sesDate is the Date the SES stand-in puts on the mail.
const sesDate = "Thu, 26 Nov 2026 08:00:00 +0000"

// replaceHeader replaces the first field name of the header section.
func replaceHeader(data []byte, name, value string) []byte {
	lines := strings.SplitAfter(string(data), "\r\n")
	for i, l := range lines {
		if l == "\r\n" {
			break
		}
		if k, _, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			lines[i] = k + ": " + value + "\r\n"
			break
		}
	}
	return []byte(strings.Join(lines, ""))
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
func (s *Sink) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hellos = append(s.hellos, c.Hostname())
	if e := s.refuseHello[strings.ToLower(c.Hostname())]; e != nil {
		return nil, e
	}
	return &session{sink: s, conn: c}, nil
}

type session struct {
	sink   *Sink
	conn   *smtp.Conn
	authed bool
	mail   Mail
}

func (ss *session) AuthMechanisms() []string {
	ss.sink.mu.Lock()
	defer ss.sink.mu.Unlock()
	if ss.sink.mechanisms == nil {
		return []string{sasl.Plain}
	}
	return append([]string(nil), ss.sink.mechanisms...)
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	check := func(user, pass string) error {
		ss.sink.mu.Lock()
		defer ss.sink.mu.Unlock()
		if want, ok := ss.sink.users[user]; !ok || want != pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		ss.authed = true
		ss.sink.authed = append(ss.sink.authed, mech+":"+user)
		return nil
	}
	switch mech {
	case sasl.Login:
		return &loginServer{check: check}, nil
	case "XOAUTH2":
		return &xoauth2Server{check: check}, nil
	}
	return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
}

// loginServer is AUTH LOGIN as Microsoft 365 speaks it: "Username:", then
// "Password:" (draft-murchison-sasl-login).
type loginServer struct {
	check func(user, pass string) error
	user  []byte
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	switch {
	case l.user == nil && response == nil:
		return []byte("Username:"), false, nil
	case l.user == nil:
		l.user = response
		return []byte("Password:"), false, nil
	}
	return nil, true, l.check(string(l.user), string(response))
}

// xoauth2Server reads "user={user}\x01auth=Bearer {token}\x01\x01"
// (developers.google.com/gmail/imap/xoauth2-protocol).
type xoauth2Server struct {
	check func(user, token string) error
}

func (x *xoauth2Server) Next(response []byte) ([]byte, bool, error) {
	var user, token string
	for _, kv := range strings.Split(string(response), "\x01") {
		if v, ok := strings.CutPrefix(kv, "user="); ok {
			user = v
		}
		if v, ok := strings.CutPrefix(kv, "auth=Bearer "); ok {
			token = v
		}
	}
	return nil, true, x.check(user, token)
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.sink.mu.Lock()
	needAuth, stall := ss.sink.users != nil, ss.sink.stall
	ss.sink.mu.Unlock()
	if stall != nil {
		<-stall
	}
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
	if id := ss.sink.sesID; id != "" {
		b = replaceHeader(replaceHeader(b, "Message-ID", "<"+id+"@email.amazonses.com>"), "Date", sesDate)
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
	if id := ss.sink.sesID; id != "" {
		return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.NoEnhancedCode, Message: "Ok " + id}
	}
	return nil
}

func (ss *session) Reset()        { ss.mail = Mail{} }
func (ss *session) Logout() error { return nil }
