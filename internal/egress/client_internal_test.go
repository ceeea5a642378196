package egress

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// counting is a stand-in that counts its requests and answers 200 "ok".
func counting(t *testing.T, tls bool) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); _, _ = w.Write([]byte("ok")) })
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

// redirecting is an https stand-in that redirects every request to target.
func redirecting(t *testing.T, target string) *httptest.Server {
	srv := httptest.NewTLSServer(http.RedirectHandler(target, http.StatusFound))
	t.Cleanup(srv.Close)
	return srv
}

// trusting makes a client's guarded transport trust srv's certificate and,
// when public, take loopback for a public address (so stand-ins serve as
// hosts on the internet).
func trusting(c *http.Client, srv *httptest.Server, public bool) *http.Client {
	g := c.Transport.(*guard)
	g.transport.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	if public {
		g.refuse = func(netip.Addr) string { return "" }
	}
	return c
}

func refusal(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want the guard's refusal", err)
	}
	return e
}

// An operator-trusted origin (a Graph API base URL on 127.0.0.1) is
// reached, but its redirect to another loopback address is refused at the
// dial, naming neither the address nor the target.
func TestRedirectFromTrustedOriginToLoopbackIsRefused(t *testing.T) {
	inside, hits := counting(t, false)
	cdn := redirecting(t, strings.Replace(inside.URL, "http://", "https://", 1)+"/latest/meta-data/")
	c := New(Options{Trusted: []string{cdn.URL}, Via: cdn.Client().Transport, Redirects: 3})
	_, err := c.Get(cdn.URL + "/media")
	e := refusal(t, err)
	if e.Kind != Address || !e.Redirect || hits.Load() != 0 {
		t.Fatalf("refusal %+v, %d internal requests", e, hits.Load())
	}
	if msg := e.Error(); msg != "msgsvc refused to follow a redirect to a loopback address, which it does not reach" {
		t.Fatalf("message %q", msg)
	}
}

// A redirect from https to http is refused, public address or not.
func TestRedirectToPlainHTTPIsRefused(t *testing.T) {
	plain, hits := counting(t, false)
	cdn := redirecting(t, plain.URL+"/image.png")
	for _, o := range []Options{{Redirects: 3}, {Redirects: 3, PlainHTTP: true}} {
		_, err := trusting(New(o), cdn, true).Get(cdn.URL + "/a")
		if e := refusal(t, err); e.Kind != Scheme || !e.Redirect || hits.Load() != 0 {
			t.Fatalf("%+v: refusal %+v, %d plain requests", o, e, hits.Load())
		}
	}
	// PlainHTTP lets the first request be http.
	if resp, err := trusting(New(Options{PlainHTTP: true}), cdn, true).Get(plain.URL); err != nil || hits.Load() != 1 {
		t.Fatalf("a plain first request: %v, %d requests", err, hits.Load())
	} else {
		resp.Body.Close()
	}
}

// Hosts limits the first request and every redirect; Redirects bounds the
// chain; 0 follows none.
func TestHostsAndRedirectLimits(t *testing.T) {
	target, hits := counting(t, true)
	cdn := redirecting(t, target.URL+"/file")
	c := trusting(New(Options{Hosts: []string{"lookaside.fbsbx.com", ".fbcdn.net"}, HostsName: "Meta's media hosts", Redirects: 3}), cdn, true)
	_, err := c.Get(cdn.URL)
	if e := refusal(t, err); e.Kind != Host || e.Redirect || e.Error() != "msgsvc refused to fetch from 127.0.0.1, which is not one of Meta's media hosts" {
		t.Fatalf("refusal %+v: %v", e, e)
	}
	for host, want := range map[string]bool{"lookaside.fbsbx.com": true, "scontent-ams2-1.xx.fbcdn.net": true, "fbcdn.net": false,
		"lookaside.fbsbx.com.evil.example": false, "evilfbcdn.net": false, "LOOKASIDE.FBSBX.COM.": true} {
		if got := allowedHost([]string{"lookaside.fbsbx.com", ".fbcdn.net"}, host); got != want {
			t.Errorf("allowedHost(%s) = %v", host, got)
		}
	}
	loop := httptest.NewTLSServer(nil)
	loop.Config.Handler = http.RedirectHandler(loop.URL+"/again", http.StatusFound)
	t.Cleanup(loop.Close)
	_, err = trusting(New(Options{Redirects: 2}), loop, true).Get(loop.URL)
	if e := refusal(t, err); e.Kind != TooManyRedirects || e.Error() != "msgsvc refused to follow more than 2 redirects" {
		t.Fatalf("refusal %+v", e)
	}
	resp, err := trusting(New(Options{}), cdn, true).Get(cdn.URL)
	if err != nil || resp.StatusCode != http.StatusFound || hits.Load() != 0 {
		t.Fatalf("no redirects followed: %v %v, %d", resp, err, hits.Load())
	}
	resp.Body.Close()
}

// A name that resolves to an internal address is refused at the dial; the
// refusal names the host and the kind of address, never the address.
func TestNameResolvingInsideIsRefusedWithoutItsAddress(t *testing.T) {
	srv, hits := counting(t, true)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "https://"), ":")
	_, err := trusting(New(Options{}), srv, false).Get("https://localhost:" + port + "/")
	e := refusal(t, err)
	msg := e.Error()
	if e.Kind != Address || hits.Load() != 0 || msg != "msgsvc refused to connect to localhost: it resolves to a loopback address, which it does not reach" {
		t.Fatalf("refusal %q, %d requests", msg, hits.Load())
	}
	// A literal is named as the URL gives it, with the IPv4 it embeds.
	_, err = trusting(New(Options{}), srv, false).Get("https://[::ffff:7f00:1]:" + port + "/")
	if msg := refusal(t, err).Error(); msg != "msgsvc refused to connect to 127.0.0.1: a loopback address, which it does not reach" {
		t.Fatalf("refusal %q", msg)
	}
	// AllowInsecure lifts the rule.
	resp, err := trusting(New(Options{AllowInsecure: true}), srv, false).Get(srv.URL)
	if err != nil || hits.Load() != 1 {
		t.Fatalf("insecure: %v, %d requests", err, hits.Load())
	}
	resp.Body.Close()
}
