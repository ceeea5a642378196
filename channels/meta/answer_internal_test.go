package meta

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A 2xx answer longer than the bound took the request: the id it carried is
// lost, so the outcome is unknown, never a refusal.
func TestOversizedAcceptanceIsUnknown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"messages":[{"id":"wamid.1"}]}`))
	}))
	defer srv.Close()
	c := Config{GraphURL: srv.URL}.Graph()
	_, err := c.exchange(context.Background(), http.MethodPost, c.URL("1", "messages"), "T", "application/json", strings.NewReader("{}"), 8)
	var e *Error
	if !errors.As(err, &e) || !e.OutcomeUnknown() {
		t.Fatalf("error %#v, want an unknown outcome", err)
	}
}

// TestFetchTimeoutGrowsWithTheLimit: a media fetch gets the call's timeout
// and a second per MiB it may read; a JSON call keeps the call's timeout.
func TestFetchTimeoutGrowsWithTheLimit(t *testing.T) {
	c := &Client{Timeout: 15 * time.Second}
	for limit, want := range map[int64]time.Duration{
		0:         15 * time.Second,
		100 << 20: 115 * time.Second, // WhatsApp's media bound
		25 << 20:  40 * time.Second,  // Instagram's attachment bound
		1<<20 - 1: 15 * time.Second,
	} {
		if got := c.fetchTimeout(limit); got != want {
			t.Errorf("fetchTimeout(%d) = %v, want %v", limit, got, want)
		}
	}
}
