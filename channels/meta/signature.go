package meta

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// SignatureHeader is the header of Meta's webhook signature.
const SignatureHeader = "X-Hub-Signature-256"

// VerifySignature says whether header ("sha256=<hex>") is the HMAC-SHA256
// of the raw body bytes keyed with the app secret, compared in constant
// time. Check it before parsing: Meta signs its own serialisation (escaped
// unicode and slashes), so a re-encoded body would not match. An empty
// secret verifies nothing.
func VerifySignature(secret string, raw []byte, header string) bool {
	if secret == "" {
		return false
	}
	got, ok := signature(header)
	return ok && hmac.Equal(got, Sign(secret, raw))
}

// signature reads an X-Hub-Signature-256 header: "sha256=" and the hex of
// 32 bytes.
func signature(header string) ([]byte, bool) {
	value, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok {
		return nil, false
	}
	got, err := hex.DecodeString(value)
	return got, err == nil && len(got) == sha256.Size
}

// SignatureShaped says whether an X-Hub-Signature-256 header has the form
// of one, so a request that cannot verify under any secret is refused
// before any secret is read.
func SignatureShaped(header string) bool {
	_, ok := signature(header)
	return ok
}

// Sign is the HMAC-SHA256 of raw keyed with secret; SignatureValue is its
// header form. Tests and stand-ins sign payloads with them.
func Sign(secret string, raw []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(raw)
	return mac.Sum(nil)
}

// SignatureValue is the X-Hub-Signature-256 value of raw.
func SignatureValue(secret string, raw []byte) string {
	return "sha256=" + hex.EncodeToString(Sign(secret, raw))
}
