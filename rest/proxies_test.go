package rest_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/clientaddr"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// behindProxy makes the test server's loopback peer a trusted proxy, as
// MSGSVC_TRUSTED_PROXIES=127.0.0.0/8 does.
func behindProxy(t *testing.T) func(*resttest.API) {
	proxies, err := clientaddr.Parse("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	return func(a *resttest.API) { a.Server.TrustedProxies = proxies }
}

func TestIPAllowlistSeesTheClientBehindATrustedProxy(t *testing.T) {
	logs := captureLogs(t)
	direct := resttest.New(t)
	// From a peer that is not a trusted proxy the header is ignored: a
	// client cannot claim an allowed address.
	direct.Want(direct.Do("GET", "/v1/channels", "ip_private", nil, "X-Forwarded-For", "10.1.2.3"), 403, "ip_not_allowed")
	direct.Want(direct.Do("GET", "/v1/channels", "ip_loopback", nil, "X-Forwarded-For", "10.1.2.3"), 200, "")

	proxied := resttest.New(t, behindProxy(t))
	r := proxied.Want(proxied.Do("GET", "/v1/channels", "ip_private", nil, "X-Forwarded-For", "198.51.100.9, 10.1.2.3"), 200, "")
	lines := logLines(t, logs.String(), "request_id", r.Header.Get("X-Request-Id"))
	if len(lines) != 1 || lines[0]["client_ip"] != "10.1.2.3" {
		t.Errorf("log lines %v, want client_ip 10.1.2.3", lines)
	}
	proxied.Want(proxied.Do("GET", "/v1/channels", "ip_loopback", nil, "X-Forwarded-For", "10.1.2.3"), 403, "ip_not_allowed")
	// The proxy's own requests (no header) come from the proxy.
	proxied.Want(proxied.Do("GET", "/v1/channels", "ip_loopback", nil), 200, "")
}

func TestWidgetPerIPLimitTellsVisitorsBehindAProxyApart(t *testing.T) {
	// A visitor limit of 1 a minute: 4 visitor API requests a minute per IP.
	sessionFrom := func(a *resttest.API, xff string) *resttest.Response {
		return a.Do("POST", "/widget/v1/sessions", "", map[string]any{"website_id": "web_main"},
			"Origin", mainOrigin, "X-Forwarded-For", xff)
	}
	proxied := widgetAPI(t, 1, time.Hour, behindProxy(t))
	for range 4 {
		proxied.Want(sessionFrom(proxied, "198.51.100.1"), 200, "")
	}
	proxied.Want(sessionFrom(proxied, "198.51.100.1"), 429, "rate_limited")
	proxied.Want(sessionFrom(proxied, "198.51.100.2"), 200, "")
	proxied.Want(sessionFrom(proxied, "2001:db8::2"), 200, "")

	// Without a trusted proxy, addresses made up in the header share the
	// peer's limit.
	direct := widgetAPI(t, 1, time.Hour)
	for i := range 4 {
		direct.Want(sessionFrom(direct, "198.51.100."+string(rune('1'+i))), 200, "")
	}
	direct.Want(sessionFrom(direct, "198.51.100.9"), 429, "rate_limited")
}
