package meta

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
