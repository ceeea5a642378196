// Package signing holds the service secret, MSGSVC_SECRET, as a list for
// rotation: the first secret signs, every one verifies (cursors, file
// links, unsubscribe links) or opens (webhook signing secrets).
package signing

import "crypto/hmac"

// Secrets are the service secrets, the signing one first. The zero value
// signs with the empty secret and verifies nothing a non-empty one signed.
type Secrets []string

// Signing is the secret that signs and seals.
func (s Secrets) Signing() string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Verify says, in constant time per secret, whether got is mac of one of
// the secrets.
func (s Secrets) Verify(got string, mac func(secret string) string) bool {
	if len(s) == 0 {
		return hmac.Equal([]byte(got), []byte(mac("")))
	}
	ok := false
	for _, secret := range s {
		if hmac.Equal([]byte(got), []byte(mac(secret))) {
			ok = true
		}
	}
	return ok
}
