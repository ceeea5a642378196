package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/msgsvc/msgsvc/rest/webhooksig"
)

// maxAnswer is how much of an endpoint's answer is read: enough for a
// verification echo, never a memory risk.
const maxAnswer = 64 << 10

// refusedPrefixes are ranges no webhook may reach besides those netip
// classifies (loopback, private, link-local, multicast, unspecified): the
// shared, reserved and special-purpose ones, where cloud metadata services
// and internal networks also live, and the IPv6 ranges that reach IPv4
// through a translator or tunnel (NAT64, 6to4, Teredo).
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("2001::/32"), // Teredo: an IPv4 address, obfuscated
}

// embeddingPrefixes are the IPv6 forms that carry an IPv4 address in their
// last 32 bits: IPv4-compatible (::a.b.c.d, deprecated) and IPv4-translated
// (::ffff:0:a.b.c.d). IPv4-mapped (::ffff:a.b.c.d) is netip's Unmap; the
// NAT64, 6to4 and Teredo ranges are refused whole (refusedPrefixes).
var embeddingPrefixes = []netip.Prefix{
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
}

// normalize returns the IPv4 address an IPv6 address stands for when it
// embeds one, and the address itself otherwise. :: and ::1 stay IPv6.
func normalize(ip netip.Addr) netip.Addr {
	ip = ip.Unmap()
	if !ip.Is6() || ip.IsUnspecified() || ip.IsLoopback() {
		return ip
	}
	for _, p := range embeddingPrefixes {
		if p.Contains(ip) {
			b := ip.As16()
			return netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	return ip
}

// refusal says why an address may not be reached, or "" when it may. An
// IPv6 form that embeds an IPv4 address is judged by that address.
func refusal(ip netip.Addr) string {
	ip = normalize(ip)
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case ip.IsUnspecified(), ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "not a unicast address"
	}
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return "a reserved address"
		}
	}
	return ""
}

// refusedError is a connection the egress rules did not allow. Its text
// says that msgsvc refused, not the endpoint, and how local development
// lifts the rule.
type refusedError struct{ what string }

func (e *refusedError) Error() string {
	return "msgsvc refused " + e.what + " (MSGSVC_WEBHOOK_ALLOW_INSECURE=true lifts this for local development)"
}

// refusedAddress is the refusal of an address by the egress rules.
func refusedAddress(addr, why string) *refusedError {
	return &refusedError{fmt.Sprintf("to connect to %s: %s, which webhooks may not reach", addr, why)}
}

// httpClient is the one client of webhook requests. Its dialer checks each
// address after DNS resolution, so a name that resolves (or rebinds) to an
// internal address is refused; redirects are not followed; no proxy is used.
func (c *Config) httpClient() *http.Client {
	c.once.Do(func() {
		dialer := &net.Dialer{Timeout: c.timeout(), KeepAlive: 30 * time.Second}
		if !c.AllowInsecure {
			dialer.Control = func(_, address string, _ syscall.RawConn) error {
				shown, why, err := DialRefusal(address)
				if why != "" {
					return refusedAddress(shown, why)
				}
				return err
			}
		}
		c.client = &http.Client{
			Timeout: c.timeout(),
			Transport: &http.Transport{
				DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
				MaxIdleConns: 200, MaxIdleConnsPerHost: MaxAttemptsInFlight, IdleConnTimeout: 90 * time.Second,
				TLSHandshakeTimeout: c.timeout(), ResponseHeaderTimeout: c.timeout(),
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return c.client
}

// answer is what an endpoint said to one request.
type answer struct {
	Status int    // 0 when there was no HTTP answer
	Body   []byte // at most maxAnswer bytes
	Err    error  // why there was no (complete) answer
}

// OK says whether the request succeeded: any 2xx, in time.
func (a answer) OK() bool { return a.Err == nil && a.Status >= 200 && a.Status < 300 }

// Problem describes a failed request for last_error and verification.reason,
// naming who failed: the endpoint, or msgsvc refusing to connect. A DNS
// failure names the host looked up, never the resolver msgsvc asked.
func (a answer) Problem(timeout time.Duration) string {
	var refused *refusedError
	var dns *net.DNSError
	var uerr *url.Error
	switch {
	case a.Err == nil && a.Status >= 300 && a.Status < 400:
		return fmt.Sprintf("the endpoint answered HTTP %d; redirects are not followed", a.Status)
	case a.Err == nil:
		return fmt.Sprintf("the endpoint answered HTTP %d", a.Status)
	case errors.As(a.Err, &refused):
		return refused.Error()
	case errors.As(a.Err, &dns):
		return dnsProblem(dns)
	case errors.Is(a.Err, context.DeadlineExceeded), isTimeout(a.Err):
		return fmt.Sprintf("the endpoint gave no answer within %s", timeout)
	case errors.As(a.Err, &uerr):
		return "the endpoint could not be reached: " + uerr.Err.Error()
	}
	return "the endpoint could not be reached: " + a.Err.Error()
}

// dnsProblem describes a failed lookup by its host alone: net.DNSError's
// own text names the server's resolver address.
func dnsProblem(e *net.DNSError) string {
	switch {
	case e.IsNotFound:
		return fmt.Sprintf("the host %s could not be resolved: no such host", e.Name)
	case e.IsTimeout:
		return fmt.Sprintf("the host %s could not be resolved: the DNS lookup timed out", e.Name)
	}
	return fmt.Sprintf("the host %s could not be resolved: the DNS lookup failed", e.Name)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// post sends one signed JSON request. A URL that is not HTTPS is refused
// here too, as the insecure setting may have changed since it was stored.
func (c *Config) post(ctx context.Context, rawURL string, body []byte, signature string) answer {
	u, err := url.Parse(rawURL)
	if err != nil {
		return answer{Err: err}
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !c.AllowInsecure) {
		return answer{Err: &refusedError{"to send to a URL that is not https://"}}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return answer{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "msgsvc-webhooks/1")
	req.Header.Set(webhooksig.HeaderName, signature)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return answer{Err: err}
	}
	defer resp.Body.Close()
	out := answer{Status: resp.StatusCode}
	out.Body, out.Err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	return out
}
