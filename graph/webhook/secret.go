package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/repo"
)

// WebhookSecretPrefix starts every signing secret.
const WebhookSecretPrefix = "whsec_"

// newWebhookSecret returns whsec_ and 32 random bytes in hex.
func newWebhookSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return WebhookSecretPrefix + hex.EncodeToString(b), nil
}

// secretAEAD is AES-256-GCM under a key derived from a service secret
// (MSGSVC_SECRET). Signing needs the secret itself, so it is sealed rather
// than hashed; a database dump alone does not reveal it.
func secretAEAD(secret string) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "msgsvc webhook signing secrets v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealSecret encrypts a secret under the signing service secret, bound to
// its endpoint id so a sealed value copied to another row does not open.
func (s *Service) sealSecret(endpointID, secret string) ([]byte, error) {
	aead, err := secretAEAD(s.Secrets.Signing())
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, []byte(secret), []byte(endpointID)), nil
}

// errSecretSealed says a secret does not open, typically because
// MSGSVC_SECRET changed since it was sealed.
var errSecretSealed = errors.New("the signing secret cannot be decrypted (was MSGSVC_SECRET changed?); roll the secret")

func (s *Service) openSecret(endpointID string, sealed []byte) (string, error) {
	plain, _, err := s.open(endpointID, sealed)
	return plain, err
}

// open opens a sealed secret with each service secret in turn and tells
// which one (its index) opened it.
func (s *Service) open(endpointID string, sealed []byte) (string, int, error) {
	secrets := s.Secrets
	if len(secrets) == 0 {
		secrets = signing.Secrets{""}
	}
	for i, secret := range secrets {
		aead, err := secretAEAD(secret)
		if err != nil {
			return "", 0, err
		}
		if len(sealed) < aead.NonceSize() {
			return "", 0, errSecretSealed
		}
		if plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(endpointID)); err == nil {
			return string(plain), i, nil
		}
	}
	return "", 0, errSecretSealed
}

// ResealSecret makes an endpoint's signing secret sealed under any service
// secret one sealed under the signing one (msgsvc rekey); changed is false
// when it already was.
func (s *Service) ResealSecret(endpointID string, sealed []byte) (resealed []byte, changed bool, err error) {
	plain, i, err := s.open(endpointID, sealed)
	if err != nil || i == 0 {
		return sealed, false, err
	}
	resealed, err = s.sealSecret(endpointID, plain)
	return resealed, err == nil, err
}

// signingSecrets are the secrets that sign a request at now: the current
// one, and the previous one while its grace period lasts.
func (s *Service) signingSecrets(e *repo.WebhookEndpoint, now time.Time) ([]string, error) {
	current, err := s.openSecret(e.ID, e.Secret)
	if err != nil {
		return nil, err
	}
	out := []string{current}
	if e.PreviousSecret != nil && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		// A previous secret that does not open is left out rather than
		// failing: rolling is how a sealed-away secret gets replaced.
		if previous, err := s.openSecret(e.ID, e.PreviousSecret); err == nil {
			out = append(out, previous)
		}
	}
	return out, nil
}
