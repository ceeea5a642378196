// Package seal keeps provider credentials (access tokens, DKIM keys, widget
// identity secrets) sealed at rest with AES-256-GCM. A sealed
// value is base64 of nonce || ciphertext; the additional data binds it to
// the row it belongs to, so a sealed value copied to another row does not
// open.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// Key is a 32-byte AES-256 key, or a ring of them for rotation (Ring): the
// first seals, every one opens. Its zero value seals nothing: Seal and Open
// refuse with ErrNoKey.
type Key struct{ k [][]byte }

// ErrNoKey says the service was started without an encryption key.
var ErrNoKey = errors.New("seal: no encryption key configured")

// ErrOpen says a sealed value is corrupt, was sealed under another key, or
// belongs to another row.
var ErrOpen = errors.New("seal: the value does not open with this key")

// New returns the key of MSGSVC_ENCRYPTION_KEY: 32 bytes in standard
// base64. When it is empty the key is derived from secret (MSGSVC_SECRET),
// so a development setup needs nothing more.
func New(encoded, secret string) (Key, error) {
	if encoded == "" {
		if secret == "" {
			return Key{}, errors.New("seal: neither an encryption key nor a secret to derive one from")
		}
		sum := sha256.Sum256([]byte("msgsvc-seal-v1\x00" + secret))
		return Key{k: [][]byte{sum[:]}}, nil
	}
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return Key{}, fmt.Errorf("seal: the key is not standard base64: %w", err)
	}
	if len(raw) != 32 {
		return Key{}, fmt.Errorf("seal: the key is %d bytes; 32 are needed", len(raw))
	}
	return Key{k: [][]byte{raw}}, nil
}

// Ring is one key of several: the first key's first seals, and a value
// any of their keys sealed opens.
func Ring(keys ...Key) Key {
	var ring Key
	for _, k := range keys {
		ring.k = append(ring.k, k.k...)
	}
	return ring
}

// String never shows the key.
func (Key) String() string { return "seal.Key(redacted)" }

func (k Key) aead(i int) (cipher.AEAD, error) {
	if len(k.k) == 0 {
		return nil, ErrNoKey
	}
	block, err := aes.NewCipher(k.k[i])
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return cipher.NewGCM(block)
}

// Seal encrypts plaintext bound to aad (for example "channel_accounts:wa_main")
// with the first key.
func (k Key) Seal(plaintext []byte, aad string) (string, error) {
	g, err := k.aead(0)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: nonce: %w", err)
	}
	return base64.StdEncoding.EncodeToString(g.Seal(nonce, nonce, plaintext, []byte(aad))), nil
}

// Open decrypts a value Seal made with one of the keys and the same aad.
func (k Key) Open(sealed, aad string) ([]byte, error) {
	out, _, err := k.open(sealed, aad)
	return out, err
}

// open is Open that also tells which key opened the value.
func (k Key) open(sealed, aad string) ([]byte, int, error) {
	if len(k.k) == 0 {
		return nil, 0, ErrNoKey
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return nil, 0, ErrOpen
	}
	for i := range k.k {
		g, err := k.aead(i)
		if err != nil {
			return nil, 0, err
		}
		if len(raw) < g.NonceSize() {
			return nil, 0, ErrOpen
		}
		if out, err := g.Open(nil, raw[:g.NonceSize()], raw[g.NonceSize():], []byte(aad)); err == nil {
			return out, i, nil
		}
	}
	return nil, 0, ErrOpen
}

// Reseal makes a value sealed with any key one sealed with the first: it
// answers the value again and changed=false when the first key sealed it.
func (k Key) Reseal(sealed, aad string) (resealed string, changed bool, err error) {
	plain, i, err := k.open(sealed, aad)
	if err != nil || i == 0 {
		return sealed, false, err
	}
	resealed, err = k.Seal(plain, aad)
	return resealed, err == nil, err
}
