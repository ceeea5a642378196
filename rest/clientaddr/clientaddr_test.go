package clientaddr

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	p, err := Parse(" 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::ffff:172.16.0.0/108,")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "172.16.0.0/12"}
	if len(p) != len(want) {
		t.Fatalf("Parse = %v, want %v", p, want)
	}
	for i, w := range want {
		if p[i].String() != w {
			t.Errorf("Parse[%d] = %s, want %s", i, p[i], w)
		}
	}
	if p, err := Parse(""); err != nil || len(p) != 0 {
		t.Errorf("Parse(\"\") = %v, %v; want no proxies", p, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0", "fe80::1%eth0", "10.0.0.0/8;192.168.0.0/16"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "not a CIDR range") {
			t.Errorf("Parse(%q) = %v, want a CIDR error", bad, err)
		}
	}
}

func TestOf(t *testing.T) {
	proxies, err := Parse("10.0.0.0/8, 2001:db8:ffff::/48")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		peers  Proxies
		remote string
		xff    []string
		want   string
	}{
		{"no proxies trusted: the peer", nil, "203.0.113.7:5100", []string{"198.51.100.1"}, "203.0.113.7"},
		{"untrusted peer's header is ignored (spoofed)", proxies, "203.0.113.7:5100", []string{"10.1.1.1, 198.51.100.1"}, "203.0.113.7"},
		{"trusted peer without a header: the peer", proxies, "10.0.0.2:5100", nil, "10.0.0.2"},
		{"trusted peer names its client", proxies, "10.0.0.2:5100", []string{"198.51.100.1"}, "198.51.100.1"},
		{"a spoofed entry left of the client is ignored", proxies, "10.0.0.2:5100", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"trusted hops are skipped right to left", proxies, "10.0.0.2:5100", []string{"1.2.3.4, 198.51.100.1, 10.9.9.9", "10.0.0.3"}, "198.51.100.1"},
		{"every hop trusted: the leftmost", proxies, "10.0.0.2:5100", []string{"10.0.0.5,10.0.0.4"}, "10.0.0.5"},
		{"garbage stops the walk at the last address read", proxies, "10.0.0.2:5100", []string{"198.51.100.1, not-an-ip, 10.0.0.4"}, "10.0.0.4"},
		{"garbage right away: the peer", proxies, "10.0.0.2:5100", []string{"<script>"}, "10.0.0.2"},
		{"an empty entry is garbage", proxies, "10.0.0.2:5100", []string{"198.51.100.1,"}, "10.0.0.2"},
		{"entries with ports", proxies, "10.0.0.2:5100", []string{"198.51.100.1:4711"}, "198.51.100.1"},
		{"IPv6 peer and client", proxies, "[2001:db8:ffff::1]:443", []string{"2001:db8:1::42"}, "2001:db8:1::42"},
		{"IPv6 client with a port", proxies, "10.0.0.2:5100", []string{"[2001:db8:1::42]:4711"}, "2001:db8:1::42"},
		{"IPv6 untrusted peer ignores the header", proxies, "[2001:db8:1::1]:443", []string{"198.51.100.1"}, "2001:db8:1::1"},
		{"IPv4-mapped peer is the IPv4 address", proxies, "[::ffff:10.0.0.2]:443", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"peer without a port", proxies, "10.0.0.2", []string{"198.51.100.1"}, "198.51.100.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.peers.Of(c.remote, c.xff)
			if got != netip.MustParseAddr(c.want) {
				t.Errorf("Of(%q, %q) = %v, want %s", c.remote, c.xff, got, c.want)
			}
		})
	}
	if got := proxies.Of("pipe", []string{"198.51.100.1"}); got.IsValid() {
		t.Errorf("Of(pipe) = %v, want no address", got)
	}
}
