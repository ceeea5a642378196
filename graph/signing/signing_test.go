package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

func mac(payload string) func(string) string {
	return func(secret string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(payload))
		return string(m.Sum(nil))
	}
}

func TestFirstSignsEveryOneVerifies(t *testing.T) {
	rotated := Secrets{"new-secret-0123456789", "old-secret-0123456789"}
	if rotated.Signing() != "new-secret-0123456789" {
		t.Fatalf("Signing = %q", rotated.Signing())
	}
	byOld := mac("payload")("old-secret-0123456789")
	byNew := mac("payload")(rotated.Signing())
	if !rotated.Verify(byOld, mac("payload")) || !rotated.Verify(byNew, mac("payload")) {
		t.Error("a value signed by one of the secrets does not verify")
	}
	if (Secrets{"new-secret-0123456789"}).Verify(byOld, mac("payload")) {
		t.Error("a value of a secret no longer listed verifies")
	}
	if rotated.Verify(byNew, mac("other payload")) || rotated.Verify("", mac("payload")) {
		t.Error("a wrong signature verifies")
	}
	if (Secrets{}).Verify(byNew, mac("payload")) || (Secrets{}).Signing() != "" {
		t.Error("no secrets verify a signed value")
	}
}
