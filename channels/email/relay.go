package email

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// TLSMode is how a relay connection is protected.
type TLSMode int

// The TLS modes of MSGSVC_SMTP_RELAY.
const (
	// STARTTLS is smtp://: the relay must offer STARTTLS, or nothing is sent.
	STARTTLS TLSMode = iota
	// Implicit is smtps://: TLS from the first byte.
	Implicit
	// None is smtp://…?tls=none: plain text, for development and tests.
	None
)

// Relay is the operator's SMTP relay (MSGSVC_SMTP_RELAY).
type Relay struct {
	// Addr is host:port.
	Addr string
	TLS  TLSMode
	// Username and Password authenticate with AUTH PLAIN when set (only
	// over TLS: go-sasl's PLAIN is never offered over plain text here).
	Username, Password string
	// Hostname is the name given in EHLO (MSGSVC_SMTP_HOSTNAME).
	Hostname string
	// TLSConfig, when set, replaces the default (tests trust their own CA).
	TLSConfig *tls.Config
}

// String names the relay without its credentials (for logs).
func (r Relay) String() string { return "smtp relay " + r.Addr }

// ParseRelay reads MSGSVC_SMTP_RELAY: smtp://[user:pass@]host[:587]
// (STARTTLS required), smtps://[user:pass@]host[:465], or
// smtp://host:port?tls=none.
func ParseRelay(raw string) (*Relay, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("not a URL like smtp://user:pass@host:587")
	}
	r := &Relay{}
	port := u.Port()
	switch u.Scheme {
	case "smtp":
		r.TLS = STARTTLS
		if port == "" {
			port = "587"
		}
		switch v := u.Query().Get("tls"); v {
		case "", "starttls":
		case "none":
			r.TLS = None
		default:
			return nil, fmt.Errorf("tls=%q: only tls=none (plain text, dev and tests) or tls=starttls", v)
		}
	case "smtps":
		r.TLS = Implicit
		if port == "" {
			port = "465"
		}
		if u.Query().Has("tls") {
			return nil, errors.New("smtps:// is implicit TLS and takes no tls= option")
		}
	default:
		return nil, fmt.Errorf("scheme %q: use smtp:// or smtps://", u.Scheme)
	}
	r.Addr = net.JoinHostPort(u.Hostname(), port)
	if u.User != nil {
		r.Username = u.User.Username()
		r.Password, _ = u.User.Password()
	}
	if r.Username != "" && r.TLS == None {
		return nil, errors.New("credentials are never sent in plain text: drop tls=none or the user")
	}
	return r, nil
}

// Stage is the SMTP command a relay answered with a refusal.
type Stage string

// Stages of a submission.
const (
	StageConnect Stage = "connect"
	StageMail    Stage = "MAIL"
	StageRcpt    Stage = "RCPT"
	StageData    Stage = "DATA"
)

// SubmitError is a relay's refusal at one stage of a submission; SMTP is the
// relay's reply when it gave one (nil for a connection or TLS failure).
type SubmitError struct {
	Stage     Stage
	Recipient string
	SMTP      *smtp.SMTPError
	Err       error
	// Unknown: the relay took the whole mail (DATA and its final dot) and
	// the connection broke before its reply: it may deliver the mail.
	Unknown bool
}

// OutcomeUnknown says the relay may have taken the mail
// (channels.OutcomeUnknown).
func (e *SubmitError) OutcomeUnknown() bool { return e.Unknown }

func (e *SubmitError) Error() string {
	if e.Recipient != "" {
		return fmt.Sprintf("relay %s <%s>: %v", e.Stage, e.Recipient, e.Err)
	}
	return fmt.Sprintf("relay %s: %v", e.Stage, e.Err)
}

func (e *SubmitError) Unwrap() error { return e.Err }

func stageErr(stage Stage, rcpt string, err error) error {
	se := &SubmitError{Stage: stage, Recipient: rcpt, Err: err}
	var smtpErr *smtp.SMTPError
	if errors.As(err, &smtpErr) {
		se.SMTP = smtpErr
	}
	return se
}

// Submit hands one mail to the relay: envelope sender from, recipients to.
// It returns nil only once the relay answered 250 to the data. The context's
// deadline bounds the whole submission.
func (r *Relay) Submit(ctx context.Context, from string, to []string, data []byte) error {
	c, err := r.dial(ctx)
	if err != nil {
		return stageErr(StageConnect, "", err)
	}
	defer c.Close()
	if err := c.Mail(from, nil); err != nil {
		return stageErr(StageMail, "", err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return stageErr(StageRcpt, rcpt, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return stageErr(StageData, "", err)
	}
	if _, err := w.Write(data); err != nil {
		return stageErr(StageData, "", err)
	}
	if err := w.Close(); err != nil {
		// Close writes the final dot and reads the reply: a reply is an
		// answer; no reply after the whole mail went out is an unknown
		// outcome, never a refusal (the mail may be on its way).
		err := stageErr(StageData, "", err)
		se := err.(*SubmitError)
		se.Unknown = se.SMTP == nil
		return err
	}
	_ = c.Quit() // the mail is accepted; a failed QUIT changes nothing
	return nil
}

// dial connects, greets, secures and authenticates.
func (r *Relay) dial(ctx context.Context) (*smtp.Client, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(2 * time.Minute)
	}
	d := net.Dialer{Deadline: deadline}
	conn, err := d.DialContext(ctx, "tcp", r.Addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return nil, err
	}
	tlsConfig := r.TLSConfig
	if tlsConfig == nil {
		host, _, _ := net.SplitHostPort(r.Addr)
		tlsConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	var c *smtp.Client
	switch r.TLS {
	case Implicit:
		c = smtp.NewClient(tls.Client(conn, tlsConfig))
	case None:
		c = smtp.NewClient(conn)
	default:
		// Fails when the relay does not offer STARTTLS: never fall back to
		// plain text.
		if c, err = smtp.NewClientStartTLS(conn, tlsConfig); err != nil {
			conn.Close()
			return nil, err
		}
	}
	host := r.Hostname
	if host == "" {
		host = "localhost"
	}
	if err := c.Hello(host); err != nil {
		c.Close()
		return nil, err
	}
	if r.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", r.Username, r.Password)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Recipients are the envelope recipients of a mail: To and Cc, once each.
func Recipients(to, cc []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range append(append([]string{}, to...), cc...) {
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}
