package egress

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"
)

// Kind is the rule a request broke.
type Kind int

// The rules.
const (
	// Address: the host's address is internal (Error.Why says which kind).
	Address Kind = iota + 1
	// Scheme: not https.
	Scheme
	// Host: not one of the hosts this use allows.
	Host
	// TooManyRedirects: past Options.Redirects.
	TooManyRedirects
)

// Error is a request the guard refused before anything reached the
// address it names. Its text names the rule and the host the URL gave,
// never an address DNS answered; a redirect's target is not named at all.
type Error struct {
	Kind Kind
	// Host is the host as the URL names it.
	Host string
	// Shown is the address as shown when Host is an IP literal (with the
	// IPv4 address an IPv6 form embeds), "" when Host is a name.
	Shown string
	// Why is the kind of address (Address), the allowed hosts' name
	// (Host) or the redirect limit (TooManyRedirects).
	Why string
	// Redirect: the request was one a redirect made.
	Redirect bool
}

func (e *Error) Error() string {
	switch {
	case e.Kind == Address && e.Redirect:
		return "msgsvc refused to follow a redirect to " + e.Why + ", which it does not reach"
	case e.Kind == Address:
		return "msgsvc refused to connect to " + e.Target() + ", which it does not reach"
	case e.Kind == Scheme && e.Redirect:
		return "msgsvc refused to follow a redirect to a URL that is not https://"
	case e.Kind == Scheme:
		return "msgsvc refused to fetch a URL that is not https://"
	case e.Kind == Host && e.Redirect:
		return "msgsvc refused to follow a redirect to a host that is not one of " + e.Why
	case e.Kind == Host:
		return "msgsvc refused to fetch from " + e.Host + ", which is not one of " + e.Why
	}
	return "msgsvc refused to follow more than " + e.Why + " redirects"
}

// Target is what an address refusal says of the host: "10.1.2.3: a private
// address" for a literal, "hooks.example.com: it resolves to a private
// address" for a name.
func (e *Error) Target() string {
	if e.Shown != "" {
		return e.Shown + ": " + e.Why
	}
	if e.Why == "not an IP address" {
		return e.Host + ": " + e.Why
	}
	return e.Host + ": it resolves to " + e.Why
}

// Cause names why a request failed in a few words, without addresses,
// URLs or the far end's answer: the guard's refusal, DNS, refused, reset,
// closed, TLS, or "network error".
func Cause(err error) string {
	var refused *Error
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &refused):
		return refused.Error()
	case errors.As(err, &dnsErr):
		return "DNS lookup failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case IsTLS(err):
		return "TLS handshake failed"
	}
	return "network error"
}

// IsTLS says whether a request failed in its TLS handshake: a certificate
// that does not verify, or a far end that does not speak TLS or refused it.
func IsTLS(err error) bool {
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert) ||
		errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

func itoa(n int) string { return strconv.Itoa(n) }
