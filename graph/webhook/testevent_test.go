package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTestEventWait(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	tests := []struct {
		name string
		last *time.Time
		want time.Duration
	}{
		{"never sent", nil, 0},
		{"just now", at(0), 10 * time.Second},
		{"9.999 s ago", at(9999 * time.Millisecond), time.Millisecond},
		{"10 s ago", at(10 * time.Second), 0},
		{"an hour ago", at(time.Hour), 0},
		{"in the future (clock moved back)", at(-5 * time.Second), 15 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testEventWait(tt.last, now); got != tt.want {
				t.Errorf("testEventWait = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestTestOutcome classifies what real servers do with a request sent by
// the webhooks' guarded client.
func TestTestOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(hang) })
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(tlsSrv.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	// Generous, as the race detector on a busy machine slows handshakes;
	// only the server that never answers waits for it.
	insecure := &Config{AllowInsecure: true, Timeout: 5 * time.Second}
	impatient := &Config{AllowInsecure: true, Timeout: 300 * time.Millisecond}
	strict := &Config{Timeout: 5 * time.Second}
	tests := []struct {
		name       string
		c          *Config
		url        string
		want       string
		wantStatus int
	}{
		{"200", insecure, status(200), TestDelivered, 200},
		{"204", insecure, status(204), TestDelivered, 204},
		{"500", insecure, status(500), TestRefused, 500},
		{"a redirect is not followed", insecure, status(302), TestRefused, 302},
		{"closed port", insecure, closed, TestUnreachable, 0},
		{"no answer in time", impatient, slow.URL, TestTimedOut, 0},
		{"certificate of an unknown authority", insecure, tlsSrv.URL, TestTLSError, 0},
		{"loopback address", strict, strings.Replace(tlsSrv.URL, "http://", "https://", 1), TestURLNotAllowed, 0},
		{"plain http", strict, status(200), TestURLNotAllowed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.c.post(context.Background(), tt.url, []byte(`{}`), "t=1,v1=00")
			if got := testOutcome(a); got != tt.want || a.Status != tt.wantStatus {
				t.Errorf("outcome %s (status %d, err %v), want %s (status %d)", got, a.Status, a.Err, tt.want, tt.wantStatus)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("a", 1023) + "é" + strings.Repeat("b", 100)
	tests := []struct {
		name string
		in   []byte
		want *string
	}{
		{"empty", nil, nil},
		{"short", []byte(`{"ok":true}`), ptr(`{"ok":true}`)},
		{"cut before a character that does not fit", []byte(long), ptr(strings.Repeat("a", 1023))},
		{"invalid UTF-8 and NUL replaced", []byte("a\xffb\x00c"), ptr("a\uFFFDb\uFFFDc")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := excerpt(tt.in)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("excerpt = %v, want %v", got, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
