package metatest

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
)

// TrustTLSStandIns makes the certificate every httptest.NewTLSServer
// presents a root this test process trusts, so such a server stands in for
// a host on the internet with a valid certificate (a CDN, or an
// attacker's). Call it from TestMain, before anything verifies a TLS
// chain: SSL_CERT_FILE is read then, once.
func TrustTLSStandIns() {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	cert := srv.Certificate()
	srv.Close()
	f, err := os.CreateTemp("", "msgsvc-standin-*.pem")
	if err != nil {
		panic(err)
	}
	if err := pem.Encode(f, &pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
	if err := os.Setenv("SSL_CERT_FILE", f.Name()); err != nil {
		panic(err)
	}
}
