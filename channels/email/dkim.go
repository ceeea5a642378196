package email

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/emersion/go-message/textproto"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/msgsvc/msgsvc/channels"
)

// signedHeaders are the headers a DKIM-Signature covers when present:
// docs/email.md lists From, To, Subject, Date, Message-ID and both
// List-Unsubscribe headers (RFC 8058 needs the last two signed).
var signedHeaders = []string{"From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To",
	"References", "List-Unsubscribe", "List-Unsubscribe-Post", "MIME-Version", "Content-Type"}

// ParseKey reads a DKIM private key: PKCS#8 (RSA or Ed25519) or PKCS#1 RSA,
// in PEM. The error never quotes the key.
func ParseKey(keyPEM string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return nil, errors.New("dkim: the private key is not PEM")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		switch key := k.(type) {
		case *rsa.PrivateKey:
			return key, nil
		case ed25519.PrivateKey:
			return key, nil
		}
		return nil, fmt.Errorf("dkim: a %T key cannot sign DKIM (RSA or Ed25519 only)", k)
	}
	if key, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return key, nil
	}
	return nil, errors.New("dkim: the private key is neither PKCS#8 nor PKCS#1 RSA")
}

// Sign prepends a DKIM-Signature (relaxed/relaxed, sha256) of domain's key to
// a composed mail.
func Sign(raw []byte, domain string, key *channels.DKIMKey) ([]byte, error) {
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
		if h.Has(k) {
			keys = append(keys, k)
		}
	}
	var out bytes.Buffer
	err = dkim.Sign(&out, bytes.NewReader(raw), &dkim.SignOptions{Domain: domain, Selector: key.Selector,
		Signer: signer, Hash: crypto.SHA256, HeaderKeys: keys,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed})
	if err != nil {
		return nil, fmt.Errorf("dkim: sign: %w", err)
	}
	return out.Bytes(), nil
}
