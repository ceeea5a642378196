// Package egress is the one guarded HTTP client of every fetch a customer
// can influence: provider media, refetches, webhook deliveries and
// verifications, the email image proxy. Its dialer checks the address
// actually dialled, after DNS, against the address rule (DialRefusal),
// at every connection and so at every redirect; a redirect goes to https
// only, and to the hosts the caller allows; its errors name the cause
// without what DNS or the far end answered.
package egress

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Options say what one use of the client may reach.
type Options struct {
	// Trusted are origins the operator configured (scheme://host[:port],
	// the Graph API base URLs): requests to them go through Via, without
	// the address rule, so a stand-in on 127.0.0.1 serves tests and
	// development. Nothing a payload names is trusted.
	Trusted []string
	// Via reaches the trusted origins (nil: http.DefaultTransport).
	Via http.RoundTripper
	// Hosts, when not nil, are the only other hosts a request or a
	// redirect may reach: a name ("lookaside.fbsbx.com"), or a domain with
	// a leading dot (".fbcdn.net") for its subdomains. HostsName names
	// them in a refusal ("Meta's media hosts").
	Hosts     []string
	HostsName string
	// PlainHTTP lets the first request be http:// (mail names http images);
	// a redirect always goes to https.
	PlainHTTP bool
	// AllowInsecure lifts the address rule and allows http:
	// MSGSVC_WEBHOOK_ALLOW_INSECURE, for local development only.
	AllowInsecure bool
	// Redirects is how many redirects are followed; 0 follows none, and a
	// 3xx is the answer.
	Redirects int
	// Timeout bounds a connection, a TLS handshake and the wait for an
	// answer's headers (0: 10s).
	Timeout time.Duration
	// IdlePerHost is how many idle connections to one host are kept (0: 2).
	IdlePerHost int
}

// New is a client guarded by the options. No proxy is used: the address
// rule holds for the address dialled.
func New(o Options) *http.Client {
	timeout := cmp.Or(o.Timeout, 10*time.Second)
	idle := cmp.Or(o.IdlePerHost, 2)
	g := &guard{o: o, refuse: Refusal, dialer: net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}}
	for _, t := range o.Trusted {
		if u, err := url.Parse(t); err == nil && u.Host != "" {
			g.trusted = append(g.trusted, origin(u))
		}
	}
	g.via = o.Via
	if g.via == nil {
		g.via = http.DefaultTransport
	}
	g.transport = &http.Transport{
		DialContext: g.dial, ForceAttemptHTTP2: true,
		MaxIdleConns: 4 * idle, MaxIdleConnsPerHost: idle, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout,
	}
	return &http.Client{Transport: g, CheckRedirect: g.checkRedirect}
}

// guard is the client's transport: the host and scheme rules before a
// request, the address rule at its dial.
type guard struct {
	o         Options
	trusted   []string
	via       http.RoundTripper
	transport *http.Transport
	dialer    net.Dialer
	// refuse is the address rule (Refusal); internal tests widen it to
	// reach stand-ins on loopback.
	refuse func(netip.Addr) string
}

// origin is a URL's scheme and host:port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port)
}

// RoundTrip sends a request (the first, or one a redirect made) that the
// rules allow.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	redirect := req.Response != nil
	for _, t := range g.trusted {
		if origin(req.URL) == t {
			return g.via.RoundTrip(req)
		}
	}
	host := req.URL.Hostname()
	switch {
	case req.URL.Scheme == "https", g.o.AllowInsecure && req.URL.Scheme == "http":
	case req.URL.Scheme == "http" && g.o.PlainHTTP && !redirect:
	default:
		return nil, &Error{Kind: Scheme, Host: host, Redirect: redirect}
	}
	if g.o.Hosts != nil && !allowedHost(g.o.Hosts, host) {
		return nil, &Error{Kind: Host, Host: host, Redirect: redirect, Why: g.o.HostsName}
	}
	resp, err := g.transport.RoundTrip(req)
	var e *Error
	if errors.As(err, &e) {
		// The refusal alone: the dial error around it names the address.
		e.Redirect = redirect
		return nil, e
	}
	return resp, err
}

// allowedHost says whether host is one of hosts (a ".domain" entry allows
// its subdomains).
func allowedHost(hosts []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range hosts {
		if host == h || (strings.HasPrefix(h, ".") && strings.HasSuffix(host, h)) {
			return true
		}
	}
	return false
}

// checkRedirect follows at most Options.Redirects redirects; RoundTrip
// judges each one's URL.
func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if g.o.Redirects == 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > g.o.Redirects {
		return &Error{Kind: TooManyRedirects, Host: req.URL.Hostname(), Redirect: true, Why: itoa(g.o.Redirects)}
	}
	return nil
}

// dial connects to address (host:port as the URL names it) after DNS,
// refusing any address the rule forbids: checked at the socket, so a name
// that resolves (or rebinds) to an internal address is refused too.
func (g *guard) dial(ctx context.Context, network, address string) (net.Conn, error) {
	d := g.dialer
	if !g.o.AllowInsecure {
		host, _, _ := net.SplitHostPort(address)
		d.Control = func(_, dialled string, _ syscall.RawConn) error {
			ip, err := netip.ParseAddrPort(dialled)
			if err != nil {
				return &Error{Kind: Address, Host: host, Why: "not an IP address"}
			}
			why := g.refuse(ip.Addr())
			if why == "" {
				return nil
			}
			e := &Error{Kind: Address, Host: host, Why: why}
			if _, err := netip.ParseAddr(host); err == nil {
				e.Shown, _, _ = DialRefusal(dialled)
			}
			return e
		}
	}
	return d.DialContext(ctx, network, address)
}
