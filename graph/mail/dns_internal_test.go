package mail

import "testing"

func TestSPFMechanism(t *testing.T) {
	for host, want := range map[string]string{
		"smtp.office365.com":                 "include:spf.protection.outlook.com",
		"smtp-relay.gmail.com":               "include:_spf.google.com",
		"email-smtp.us-east-1.amazonaws.com": "include:amazonses.com",
		"relay.example.net":                  "a:relay.example.net",
		"192.0.2.7":                          "ip4:192.0.2.7",
		"2001:db8::7":                        "ip6:2001:db8::7",
		"":                                   "a",
	} {
		if got := spfMechanism(host); got != want {
			t.Errorf("%q: %s, want %s", host, got, want)
		}
	}
}
