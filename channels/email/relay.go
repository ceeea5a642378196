package email

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"os"
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
	// Username and Password authenticate when set (only over TLS), with
	// the mechanism Auth names or, when it is "", the first of PLAIN and
	// LOGIN the relay advertises. For XOAUTH2 the password is the OAuth
	// access token.
	Username, Password string
	// Auth is the SASL mechanism the URL's auth= asked for: "", "PLAIN",
	// "LOGIN" or "XOAUTH2".
	Auth string
	// Hostname is the name given in EHLO (MSGSVC_SMTP_HOSTNAME); it must
	// not be empty: relays such as Google's refuse EHLO localhost.
	Hostname string
	// TLSConfig, when set, replaces the default (tests trust their own CA).
	TLSConfig *tls.Config
	// Tokens, when set, gives the XOAUTH2 access tokens (an OAuthClient)
	// in place of Password; a token the relay refuses with 535 is
	// replaced once.
	Tokens TokenSource
	// RewritesMessageID says the relay replaces the mail's Message-ID (and
	// Date) with its own, as Amazon SES does: the signature then leaves
	// both out and References carries our own id (Adapter.Send).
	RewritesMessageID bool
}

// String names the relay without its credentials (for logs).
func (r Relay) String() string { return "smtp relay " + r.Addr }

// ParseRelay reads MSGSVC_SMTP_RELAY: smtp://[user:pass@]host[:587]
// (STARTTLS required), smtps://[user:pass@]host[:465], or
// smtp://host:port?tls=none; auth=plain|login|xoauth2 names the SASL
// mechanism (xoauth2: the password is the access token); message_id=
// rewritten|kept says whether the relay replaces Message-ID (by default:
// rewritten for Amazon SES, *.amazonaws.com, kept otherwise).
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
	switch v := u.Query().Get("message_id"); v {
	case "":
		r.RewritesMessageID = strings.HasSuffix(strings.ToLower(u.Hostname()), ".amazonaws.com")
	case "rewritten", "kept":
		r.RewritesMessageID = v == "rewritten"
	default:
		return nil, fmt.Errorf("message_id=%q: use rewritten (the relay replaces Message-ID, as Amazon SES does) or kept", v)
	}
	if u.User != nil {
		r.Username = u.User.Username()
		r.Password, _ = u.User.Password()
	}
	if r.Username != "" && r.TLS == None {
		return nil, errors.New("credentials are never sent in plain text: drop tls=none or the user")
	}
	switch auth := strings.ToUpper(u.Query().Get("auth")); auth {
	case "":
	case sasl.Plain, sasl.Login, xoauth2:
		if r.Username == "" {
			return nil, fmt.Errorf("auth=%s needs a user (and a password or token) in the URL", strings.ToLower(auth))
		}
		r.Auth = auth
	default:
		return nil, fmt.Errorf("auth=%q: use plain, login or xoauth2", u.Query().Get("auth"))
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
// deadline (2 minutes when it has none) bounds the whole submission.
func (r *Relay) Submit(ctx context.Context, from string, to []string, data []byte) error {
	_, err := r.SubmitReply(ctx, from, to, data)
	return err
}

// SubmitReply is Submit that also returns the text of the relay's 250 to
// the data (Amazon SES: "Ok {its message id}").
func (r *Relay) SubmitReply(ctx context.Context, from string, to []string, data []byte) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	fail := func(stage Stage, rcpt string, err error) error {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within the provider timeout: %w", ctx.Err())
		}
		return stageErr(stage, rcpt, err)
	}
	c, err := r.dial(ctx)
	if err != nil {
		return "", fail(StageConnect, "", err)
	}
	defer c.Close()
	if err := c.Mail(from, nil); err != nil {
		return "", fail(StageMail, "", err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return "", fail(StageRcpt, rcpt, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return "", fail(StageData, "", err)
	}
	if _, err := w.Write(data); err != nil {
		return "", fail(StageData, "", err)
	}
	reply, err := w.CloseWithResponse()
	if err != nil {
		// Close writes the final dot and reads the reply: a reply is an
		// answer; no reply after the whole mail went out is an unknown
		// outcome, never a refusal (the mail may be on its way).
		err := fail(StageData, "", err)
		se := err.(*SubmitError)
		se.Unknown = se.SMTP == nil
		return "", err
	}
	_ = c.Quit() // the mail is accepted; a failed QUIT changes nothing
	return reply.StatusText, nil
}

// errTokenRefused: the relay answered an access token of Tokens with 535.
var errTokenRefused = errors.New("the relay refused the OAuth access token")

// dial connects, greets (EHLO with Hostname, also before STARTTLS),
// secures and authenticates. The connection is closed when ctx ends, so
// its deadline bounds the whole submission: go-smtp sets and clears
// deadlines of its own around each command. An access token the relay
// refuses (revoked or expired before its time) is forgotten and the
// connection made once more with a new one.
func (r *Relay) dial(ctx context.Context) (*smtp.Client, error) {
	c, err := r.dialOnce(ctx)
	if errors.Is(err, errTokenRefused) {
		c, err = r.dialOnce(ctx)
	}
	return c, err
}

func (r *Relay) dialOnce(ctx context.Context) (*smtp.Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", r.Addr)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { conn.Close() })
	tlsConfig := r.TLSConfig
	if tlsConfig == nil {
		host, _, _ := net.SplitHostPort(r.Addr)
		tlsConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	host := r.Hostname
	if host == "" {
		host = HelloName("")
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
		secured, err := startTLS(conn, host, tlsConfig)
		if err != nil {
			conn.Close()
			return nil, err
		}
		c = smtp.NewClient(secured)
	}
	if err := c.Hello(host); err != nil {
		c.Close()
		return nil, err
	}
	if r.Username != "" {
		if err := r.authenticate(ctx, c); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// authenticate runs AUTH; an access token of Tokens the relay refuses with
// 535 is forgotten (errTokenRefused).
func (r *Relay) authenticate(ctx context.Context, c *smtp.Client) error {
	mech, token, err := r.mechanism(ctx, c)
	if err != nil {
		return err
	}
	if err = c.Auth(mech); err == nil {
		return nil
	}
	var refused *smtp.SMTPError
	if token != "" && errors.As(err, &refused) && refused.Code == 535 {
		r.Tokens.Invalidate(token)
		return fmt.Errorf("AUTH: %w (%w)", err, errTokenRefused)
	}
	return fmt.Errorf("AUTH: %w", err)
}

// HelloName is the EHLO name of a service reached at publicURL: its host,
// an address literal ("[10.0.0.5]", RFC 5321 section 4.1.3) for an IP,
// and never "localhost", which relays such as Google's refuse (421
// 4.7.0): the machine's name instead, or "[127.0.0.1]".
func HelloName(publicURL string) string {
	host := ""
	if u, err := url.Parse(publicURL); err == nil {
		host = u.Hostname()
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() == nil {
			return "[IPv6:" + host + "]"
		}
		return "[" + host + "]"
	}
	if host == "" || strings.EqualFold(host, "localhost") {
		if name, err := os.Hostname(); err == nil && name != "" && !strings.EqualFold(name, "localhost") {
			return name
		}
		return "[127.0.0.1]"
	}
	return host
}

// xoauth2 is Google's and Microsoft's OAuth 2.0 SASL mechanism.
const xoauth2 = "XOAUTH2"

// mechanism is the SASL client of the relay's credentials: the one the URL
// named, else PLAIN or LOGIN, whichever the relay advertises first in that
// order (Microsoft 365 offers LOGIN and XOAUTH2, not PLAIN); XOAUTH2 when
// Tokens is set. token is the access token Tokens gave ("" without).
func (r *Relay) mechanism(ctx context.Context, c *smtp.Client) (client sasl.Client, token string, err error) {
	_, offered := c.Extension("AUTH")
	want := []string{sasl.Plain, sasl.Login}
	switch {
	case r.Tokens != nil:
		want = []string{xoauth2}
	case r.Auth != "":
		want = []string{r.Auth}
	}
	for _, m := range want {
		if !c.SupportsAuth(m) {
			continue
		}
		switch m {
		case sasl.Plain:
			return sasl.NewPlainClient("", r.Username, r.Password), "", nil
		case sasl.Login:
			return &loginClient{r.Username, r.Password}, "", nil
		}
		if r.Tokens == nil {
			return &xoauth2Client{r.Username, r.Password}, "", nil
		}
		if token, err = r.Tokens.Token(ctx); err != nil {
			return nil, "", err
		}
		return &xoauth2Client{r.Username, token}, token, nil
	}
	if offered == "" {
		offered = "none"
	}
	return nil, "", fmt.Errorf("the relay offers AUTH %s; msgsvc speaks %s", offered, strings.Join(want, " or "))
}

// loginClient is AUTH LOGIN (draft-murchison-sasl-login) without an
// initial response: the relay asks "Username:" then "Password:".
type loginClient struct{ user, password string }

func (a *loginClient) Start() (string, []byte, error) { return sasl.Login, nil, nil }

func (a *loginClient) Next(challenge []byte) ([]byte, error) {
	switch q := strings.ToLower(string(challenge)); {
	case strings.HasPrefix(q, "user"):
		return []byte(a.user), nil
	case strings.HasPrefix(q, "pass"):
		return []byte(a.password), nil
	}
	return nil, sasl.ErrUnexpectedServerChallenge
}

// xoauth2Client is XOAUTH2 (developers.google.com/gmail/imap/xoauth2-protocol,
// learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth):
// the initial response carries the user and the bearer token; a 334
// challenge is the server's JSON error, answered with an empty line so
// that it ends the exchange with its error code.
type xoauth2Client struct{ user, token string }

func (a *xoauth2Client) Start() (string, []byte, error) {
	return xoauth2, []byte("user=" + a.user + "\x01auth=Bearer " + a.token + "\x01\x01"), nil
}

func (a *xoauth2Client) Next([]byte) ([]byte, error) { return []byte{}, nil }

// startTLS greets a relay with EHLO host and upgrades to TLS: go-smtp's
// own STARTTLS greets as localhost first, which Google's relay answers
// with 421 4.7.0. The connection it returns replays a greeting, so that
// smtp.NewClient (which reads one) can take it over for the EHLO that
// follows STARTTLS (RFC 3207 section 4.2).
func startTLS(conn net.Conn, host string, config *tls.Config) (net.Conn, error) {
	tp := textproto.NewConn(conn)
	if _, _, err := tp.ReadResponse(220); err != nil {
		return nil, smtpErr(err)
	}
	if err := tp.PrintfLine("EHLO %s", host); err != nil {
		return nil, err
	}
	_, ext, err := tp.ReadResponse(250)
	if err != nil {
		return nil, smtpErr(err)
	}
	offered := false
	for _, line := range strings.Split(ext, "\n") {
		offered = offered || strings.EqualFold(strings.TrimSpace(line), "STARTTLS")
	}
	if !offered {
		return nil, errors.New("the relay does not offer STARTTLS; nothing is sent in plain text")
	}
	if err := tp.PrintfLine("STARTTLS"); err != nil {
		return nil, err
	}
	if _, _, err := tp.ReadResponse(220); err != nil {
		return nil, smtpErr(err)
	}
	secured := tls.Client(conn, config)
	return &greeted{Conn: secured, r: io.MultiReader(strings.NewReader("220 "+host+"\r\n"), secured)}, nil
}

// greeted is a connection whose first read is a greeting already taken.
type greeted struct {
	net.Conn
	r io.Reader
}

func (g *greeted) Read(p []byte) (int, error) { return g.r.Read(p) }

// smtpErr turns a reply read by textproto into go-smtp's error, so the
// refusal mapping sees its code.
func smtpErr(err error) error {
	var te *textproto.Error
	if !errors.As(err, &te) {
		return err
	}
	e := &smtp.SMTPError{Code: te.Code, Message: te.Msg}
	if parts := strings.SplitN(te.Msg, " ", 2); len(parts) == 2 {
		var c smtp.EnhancedCode
		if n, _ := fmt.Sscanf(parts[0], "%d.%d.%d", &c[0], &c[1], &c[2]); n == 3 {
			e.EnhancedCode, e.Message = c, parts[1]
		}
	}
	return e
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
