package auth

import (
	"regexp"
	"strings"
	"testing"
)

// ValidSecret accepts exactly what the pattern of a key secret does.
func TestValidSecretIsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^svc_(live|test)_[0-9A-Za-z]{32}$`)
	body := strings.Repeat("aZ09", 8)
	cases := []string{"", "svc_test_", "svc_live_" + body, "svc_test_" + body, "svc_prod_" + body,
		"svc_test_" + body + "x", "svc_test_" + body[1:], "svc_test_" + body[1:] + "-", "svc_test_" + body[1:] + "é",
		"svc_test_" + body[1:] + "_", "SVC_TEST_" + body, " svc_test_" + body, "svc_test_" + body + "\n",
		"svc_live_svc_test_" + body[18:]}
	for c := byte(0); c < 128; c++ {
		cases = append(cases, "svc_live_"+body[1:]+string(c))
	}
	for _, s := range cases {
		if got, want := ValidSecret(s), pattern.MatchString(s); got != want {
			t.Errorf("ValidSecret(%q) = %v, want %v", s, got, want)
		}
	}
}
