package main

import (
	"net/http"
	"testing"
)

// The API and metrics servers bound the wait for a request's headers and
// close idle keep-alive connections: Go's server keeps them for ever when
// IdleTimeout and ReadTimeout are both unset.
func TestHTTPServersCloseIdleConnections(t *testing.T) {
	s := newHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	if s.ReadHeaderTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Fatalf("ReadHeaderTimeout %v, IdleTimeout %v; want both set", s.ReadHeaderTimeout, s.IdleTimeout)
	}
}
