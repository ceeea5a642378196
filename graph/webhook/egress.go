package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/msgsvc/msgsvc/internal/egress"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// maxAnswer is how much of an endpoint's answer is read: enough for a
// verification echo, never a memory risk.
const maxAnswer = 64 << 10

// refusedError is a connection the egress rules did not allow. Its text
// says that msgsvc refused, not the endpoint, and how local development
// lifts the rule.
type refusedError struct{ what string }

func (e *refusedError) Error() string {
	return "msgsvc refused " + e.what + " (MSGSVC_WEBHOOK_ALLOW_INSECURE=true lifts this for local development)"
}

// refusedAddress is the refusal of an address by the egress rules, naming
// the host as the URL gives it (never what DNS answered for a name).
func refusedAddress(e *egress.Error) *refusedError {
	return &refusedError{"to connect to " + e.Target() + ", which webhooks may not reach"}
}

// httpClient is the one client of webhook requests: the guarded client
// (graph/egress), which checks each address after DNS resolution, so a
// name that resolves (or rebinds) to an internal address is refused;
// redirects are not followed; no proxy is used.
func (c *Config) httpClient() *http.Client {
	c.once.Do(func() {
		c.client = egress.New(egress.Options{AllowInsecure: c.AllowInsecure, Timeout: c.timeout(),
			IdlePerHost: MaxAttemptsInFlight})
		c.client.Timeout = c.timeout()
	})
	return c.client
}

// answer is what an endpoint said to one request.
type answer struct {
	Status int    // 0 when there was no HTTP answer
	Body   []byte // at most maxAnswer bytes
	Err    error  // why there was no (complete) answer
	// Latency is how long the request took, answer included; zero when
	// nothing was sent.
	Latency time.Duration
}

// OK says whether the request succeeded: any 2xx, in time.
func (a answer) OK() bool { return a.Err == nil && a.Status >= 200 && a.Status < 300 }

// Problem describes a failed request for last_error and verification.reason,
// naming who failed: the endpoint, or msgsvc refusing to connect. A DNS
// failure names the host looked up, never the resolver msgsvc asked.
func (a answer) Problem(timeout time.Duration) string {
	var refused *refusedError
	var guarded *egress.Error
	var dns *net.DNSError
	switch {
	case a.Err == nil && a.Status >= 300 && a.Status < 400:
		return fmt.Sprintf("the endpoint answered HTTP %d; redirects are not followed", a.Status)
	case a.Err == nil:
		return fmt.Sprintf("the endpoint answered HTTP %d", a.Status)
	case errors.As(a.Err, &refused):
		return refused.Error()
	case errors.As(a.Err, &guarded) && guarded.Kind == egress.Address:
		return refusedAddress(guarded).Error()
	case errors.As(a.Err, &guarded):
		return guarded.Error()
	case errors.As(a.Err, &dns):
		return dnsProblem(dns)
	case errors.Is(a.Err, context.DeadlineExceeded), isTimeout(a.Err):
		return fmt.Sprintf("the endpoint gave no answer within %s", timeout)
	}
	return "the endpoint could not be reached: " + egress.Cause(a.Err)
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
	start := time.Now()
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return answer{Err: err, Latency: time.Since(start)}
	}
	defer resp.Body.Close()
	out := answer{Status: resp.StatusCode}
	out.Body, out.Err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	out.Latency = time.Since(start)
	return out
}
