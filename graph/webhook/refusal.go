package webhook

import (
	"net"
	"net/netip"
)

// DialRefusal says why msgsvc may not connect to address (host:port, as
// dialled, after DNS) on behalf of a customer's content (loopback,
// private, link-local, reserved, or an IPv6 form of one; why is "" when
// it may), and the address as shown (with the IPv4 address an IPv6 form
// embeds): the egress rule of webhooks, shared with the email image proxy.
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
	return shown, refusal(ip), nil
}
