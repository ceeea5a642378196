package emailtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"testing"
)

// RSAKey makes a DKIM key: its PKCS#8 PEM and the DNS TXT record a
// verifier would find at {selector}._domainkey.{domain}.
func RSAKey(t testing.TB) (keyPEM, txt string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(pub)
}
