// Package clientaddr tells the address of the client that made a request,
// through the reverse proxies the operator trusts (MSGSVC_TRUSTED_PROXIES).
package clientaddr

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Proxies are the networks whose peers may say, in X-Forwarded-For, whom
// they forward for. The zero value trusts no one: the client is the peer.
type Proxies []netip.Prefix

// Parse reads MSGSVC_TRUSTED_PROXIES: comma-separated CIDR ranges or single
// addresses; empty trusts no one.
func Parse(s string) (Proxies, error) {
	var out Proxies
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			a, aerr := netip.ParseAddr(part)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not a CIDR range like 10.0.0.0/8 or fd00::/8, nor an IP address", part)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Trusts says whether addr is one of the trusted proxies.
func (t Proxies) Trusts(addr netip.Addr) bool {
	for _, p := range t {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Of is the client address of a request that came from remoteAddr
// (http.Request.RemoteAddr) with the X-Forwarded-For header values
// forwarded. From an untrusted peer it is the peer, whatever the header
// says. From a trusted one the header is read right to left, each trusted
// address naming the hop before it, and the client is the first address
// that is not trusted; when every address is trusted, or an entry is not an
// address, the client is the last address read (the peer with no header).
// The zero Addr means remoteAddr is not an address.
func (t Proxies) Of(remoteAddr string, forwardedFor []string) netip.Addr {
	client := parse(remoteAddr)
	if !client.IsValid() || !t.Trusts(client) || len(forwardedFor) == 0 {
		return client
	}
	hops := strings.Split(strings.Join(forwardedFor, ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a := parse(strings.TrimSpace(hops[i]))
		if !a.IsValid() {
			break
		}
		client = a
		if !t.Trusts(a) {
			break
		}
	}
	return client
}

// parse reads an address, with or without a port ("203.0.113.7",
// "203.0.113.7:5100", "[2001:db8::1]:443", "2001:db8::1"), as a plain
// address: no zone, an IPv4-mapped IPv6 address as IPv4.
func parse(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}
