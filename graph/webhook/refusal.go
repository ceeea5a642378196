package webhook

import "net/netip"

// Refusal says why msgsvc may not connect to an address on behalf of a
// customer's content (loopback, private, link-local, reserved, or an IPv6
// form of one), or "" when it may: the egress rule of webhooks, shared
// with the email image proxy.
func Refusal(ip netip.Addr) string { return refusal(ip) }
