package email

import (
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

	"github.com/emersion/go-smtp"
)

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
