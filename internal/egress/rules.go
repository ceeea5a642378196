package egress

import (
	"net"
	"net/netip"
)

// refusedPrefixes are ranges no fetch on a customer's behalf may reach
// besides those netip classifies (loopback, private, link-local,
// multicast, unspecified): the shared, reserved and special-purpose ones,
// where cloud metadata services and internal networks also live, and the
// IPv6 ranges that reach IPv4 through a translator or tunnel (NAT64, 6to4,
// Teredo).
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

// siteLocal is IPv6's deprecated site-local range (RFC 3879): netip does
// not call it private, yet networks still route it internally.
var siteLocal = netip.MustParsePrefix("fec0::/10")

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

// Refusal says why an address may not be reached on a customer's behalf,
// or "" when it may. An IPv6 form that embeds an IPv4 address is judged
// by that address.
func Refusal(ip netip.Addr) string {
	ip = normalize(ip)
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case siteLocal.Contains(ip):
		return "a site-local address"
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

// DialRefusal says why msgsvc may not connect to address (host:port, as
// dialled, after DNS) on behalf of a customer's content (why is "" when it
// may), and the address as shown (with the IPv4 address an IPv6 form
// embeds). It is the one address rule: the guarded client's dialer asks it
// of every connection.
func DialRefusal(address string) (shown, why string, err error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return "", "", err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host, "not an IP address", nil
	}
	shown = ip.String()
	if n := normalize(ip); n != ip {
		shown += " (" + n.String() + ")"
	}
	return shown, Refusal(ip), nil
}
