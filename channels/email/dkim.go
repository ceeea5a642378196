package email

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	"github.com/emersion/go-message/textproto"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/msgsvc/msgsvc/channels"
)

// signedHeaders are the headers a DKIM-Signature covers when present:
// docs/email.md lists From, To, Subject, Date, Message-ID and both
// List-Unsubscribe headers (RFC 8058 needs the last two signed). From is
// also named once more than it occurs (oversigned, RFC 6376 section 8.15),
// so that a From added on the way breaks the signature.
var signedHeaders = []string{"From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To",
	"References", "List-Unsubscribe", "List-Unsubscribe-Post", "MIME-Version", "Content-Type"}

// MinRSABits is the smallest RSA key msgsvc signs with: RFC 8301 forbids
// shorter keys, and Gmail, Microsoft and Yahoo do not verify them.
const MinRSABits = 1024

// ParseKey reads a DKIM private key: PKCS#8 (RSA or Ed25519) or PKCS#1 RSA,
// in PEM; an RSA key under MinRSABits is refused. The error never quotes
// the key.
func ParseKey(keyPEM string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return nil, errors.New("dkim: the private key is not PEM")
	}
	var k any
	var err error
	if k, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if k, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
			return nil, errors.New("dkim: the private key is neither PKCS#8 nor PKCS#1 RSA")
		}
	}
	switch key := k.(type) {
	case *rsa.PrivateKey:
		if bits := key.N.BitLen(); bits < MinRSABits {
			return nil, fmt.Errorf("dkim: a %d-bit RSA key is too short (at least %d bits; 2048 recommended)", bits, MinRSABits)
		}
		return key, nil
	case ed25519.PrivateKey:
		return key, nil
	}
	return nil, fmt.Errorf("dkim: a %T key cannot sign DKIM (RSA or Ed25519 only)", k)
}

// CheckKey accepts a domain's signing key: an RSA key of at least
// MinRSABits. An Ed25519 key alone is refused: Gmail, Microsoft and Yahoo
// verify RSA signatures only, so Ed25519 may only sign beside an RSA key,
// and a domain has one key.
func CheckKey(keyPEM string) error {
	k, err := ParseKey(keyPEM)
	if err != nil {
		return err
	}
	if _, ok := k.(ed25519.PrivateKey); ok {
		return errors.New("dkim: an Ed25519 key alone is not verified by the large mailbox providers; use an RSA key (2048 bits)")
	}
	return nil
}

// Record is the DNS TXT record to publish at
// {selector}._domainkey.{domain} for a private key: "v=DKIM1; k=rsa;
// p={base64 of the public key}".
func Record(keyPEM string) (string, error) {
	k, err := ParseKey(keyPEM)
	if err != nil {
		return "", err
	}
	if pub, ok := k.Public().(ed25519.PublicKey); ok {
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub), nil
	}
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return "", fmt.Errorf("dkim: public key: %w", err)
	}
	return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der), nil
}

// Sign prepends a DKIM-Signature (relaxed/relaxed, sha256) of domain's key to
// a composed mail; the headers named in omit (ones the relay replaces, such
// as Amazon SES's Message-ID and Date) are left out of it.
func Sign(raw []byte, domain string, key *channels.DKIMKey, omit ...string) ([]byte, error) {
	signer, err := ParseKey(key.PrivateKeyPEM)
	if err != nil {
		return nil, err
	}
	h, err := textproto.ReadHeader(bufioReader(raw))
	if err != nil {
		return nil, fmt.Errorf("dkim: read header: %w", err)
	}
	var keys []string
	for _, k := range signedHeaders {
		if h.Has(k) && !slices.Contains(omit, k) {
			keys = append(keys, k)
		}
	}
	keys = append(keys, "From")
	var out bytes.Buffer
	err = dkim.Sign(&out, bytes.NewReader(raw), &dkim.SignOptions{Domain: domain, Selector: key.Selector,
		Signer: signer, Hash: crypto.SHA256, HeaderKeys: keys,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed})
	if err != nil {
		return nil, fmt.Errorf("dkim: sign: %w", err)
	}
	return out.Bytes(), nil
}
