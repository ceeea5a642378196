package email

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/emersion/go-sasl"
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
