package egress

import (
	"net/netip"
	"testing"
)

// Refusal judges every address form by what it reaches: the address rule
// of every guarded fetch.
func TestRefusal(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"93.184.216.34", ""},
		{"2606:2800:220:1:248:1893:25c8:1946", ""},
		{"127.0.0.1", "a loopback address"},
		{"::1", "a loopback address"},
		{"::ffff:127.0.0.1", "a loopback address"},
		{"10.1.2.3", "a private address"},
		{"172.16.0.1", "a private address"},
		{"192.168.1.1", "a private address"},
		{"fd00::1", "a private address"},
		{"169.254.169.254", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"0.0.0.0", "not a unicast address"},
		{"224.0.0.1", "a link-local address"},
		{"239.1.2.3", "not a unicast address"},
		{"100.64.0.1", "a reserved address"},
		{"198.18.0.1", "a reserved address"},
		{"240.0.0.1", "a reserved address"},
		{"64:ff9b::7f00:1", "a reserved address"},
		{"64:ff9b::808:808", "a reserved address"},
		{"64:ff9b:1::a00:1", "a reserved address"},
		{"2002:7f00:1::", "a reserved address"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "a reserved address"}, // Teredo
		// Every IPv6 form that embeds an IPv4 address is judged by it.
		{"::ffff:7f00:1", "a loopback address"},      // IPv4-mapped
		{"::7f00:1", "a loopback address"},           // IPv4-compatible
		{"::127.0.0.1", "a loopback address"},        // the same, dotted
		{"::ffff:0:7f00:1", "a loopback address"},    // IPv4-translated
		{"::ffff:0:127.0.0.1", "a loopback address"}, // the same, dotted
		{"::a01:203", "a private address"},           // ::10.1.2.3
		{"::ffff:0:c0a8:101", "a private address"},   // ::ffff:0:192.168.1.1
		{"::a9fe:a9fe", "a link-local address"},      // ::169.254.169.254
		{"::ffff:a9fe:a9fe", "a link-local address"}, // mapped metadata address
		{"::ffff:0:6464:6401", "a reserved address"}, // ::ffff:0:100.100.100.1
		{"::ffff:0:0", "not a unicast address"},      // ::ffff:0:0.0.0.0
		{"::5db8:d822", ""},                          // ::93.184.216.34, public
		{"0:0:0:0:0:0:7f00:1", "a loopback address"}, // long form
		{"0000:0000:0000:0000:0000:ffff:7f00:0001", "a loopback address"},
		// The forms an attacker reaches for: unspecified, unique-local,
		// the metadata service, shared address space, each also mapped.
		{"::", "not a unicast address"},
		{"::ffff:0.0.0.0", "not a unicast address"},
		{"fc00::1", "a private address"},
		{"fdff:ffff::1", "a private address"},
		{"169.254.0.1", "a link-local address"},
		{"::ffff:169.254.169.254", "a link-local address"},
		{"100.127.255.254", "a reserved address"},
		{"::ffff:100.64.0.1", "a reserved address"},
		{"::ffff:10.0.0.1", "a private address"},
		{"192.0.0.8", "a reserved address"},
		{"255.255.255.255", "a reserved address"},
		{"ff02::1", "a link-local address"},
		{"fe80::1%eth0", "a link-local address"},
		{"fec0::1", "a site-local address"},
		{"feff:ffff::1", "a site-local address"},
		{"::ffff:fec0:1", "a reserved address"}, // ::ffff:254.192.0.1
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := Refusal(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("Refusal(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}
