package rest_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// trickle sends a request whose body never finishes (10 of the bytes its
// Content-Length promises) and returns the status line of the answer and
// whether the server then closed the connection. The client's own 20 s
// limit only keeps a broken server from hanging the test.
func trickle(t *testing.T, base, method, path string, headers ...string) (string, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: msgsvc.test\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n", method, path)
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n{\"name\":\""); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "no answer: " + err.Error(), false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	return resp.Status, err == io.EOF
}

// TestSlowBodyIsCut: a body that does not arrive within the body deadline
// is answered 408 and its connection closed, on the unauthenticated
// /hooks/meta and on an authenticated /v1 route.
func TestSlowBodyIsCut(t *testing.T) {
	api := resttest.New(t, func(a *resttest.API) {
		a.Server.BodyTimeout = 300 * time.Millisecond
		a.Server.Meta.AppSecret = "meta-app-secret"
	})
	// The server itself: resttest's OpenAPI check reads bodies before it.
	srv := httptest.NewServer(api.Server.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		headers      []string
	}{
		{"POST", "/hooks/meta", []string{"X-Hub-Signature-256: sha256=00"}},
		{"POST", "/v1/contacts", []string{"Authorization: Bearer " + api.Key("test_all")}},
	} {
		status, closed := trickle(t, srv.URL, tc.method, tc.path, tc.headers...)
		if !strings.HasPrefix(status, "408") || !closed {
			t.Errorf("%s %s: answer %q, connection closed %v; want 408 and closed", tc.method, tc.path, status, closed)
		}
	}
}
