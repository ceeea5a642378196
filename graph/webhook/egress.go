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
// and internal networks also live.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// refusal says why an address may not be reached, or "" when it may.
func refusal(ip netip.Addr) string {
	ip = ip.Unmap()
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

// refusedError is a connection the egress rules did not allow.
type refusedError struct {
	addr string
	why  string
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s: %s", e.addr, e.why)
}

// httpClient is the one client of webhook requests. Its dialer checks each
// address after DNS resolution, so a name that resolves (or rebinds) to an
// internal address is refused; redirects are not followed; no proxy is used.
func (c *Config) httpClient() *http.Client {
	c.once.Do(func() {
		dialer := &net.Dialer{Timeout: c.timeout(), KeepAlive: 30 * time.Second}
		if !c.AllowInsecure {
			dialer.Control = func(network, address string, _ syscall.RawConn) error {
				host, _, err := net.SplitHostPort(address)
				if err != nil {
					return err
				}
				ip, err := netip.ParseAddr(host)
				if err != nil {
					return &refusedError{host, "not an IP address"}
				}
				if why := refusal(ip); why != "" {
					return &refusedError{ip.Unmap().String(), why}
				}
				return nil
			}
		}
		c.client = &http.Client{
			Timeout: c.timeout(),
			Transport: &http.Transport{
				DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
				MaxIdleConns: 200, MaxIdleConnsPerHost: 20, IdleConnTimeout: 90 * time.Second,
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

// Problem describes a failed request for last_error and verification.reason.
func (a answer) Problem(timeout time.Duration) string {
	var refused *refusedError
	var uerr *url.Error
	switch {
	case a.Err == nil && a.Status >= 300 && a.Status < 400:
		return fmt.Sprintf("answered HTTP %d; redirects are not followed", a.Status)
	case a.Err == nil:
		return fmt.Sprintf("answered HTTP %d", a.Status)
	case errors.As(a.Err, &refused):
		return refused.Error()
	case errors.Is(a.Err, context.DeadlineExceeded), isTimeout(a.Err):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.As(a.Err, &uerr):
		return uerr.Err.Error()
	}
	return a.Err.Error()
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
		return answer{Err: errors.New("refused: the URL is not HTTPS")}
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
