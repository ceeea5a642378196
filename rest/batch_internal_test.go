package rest

import (
	"net/http/httptest"
	"testing"
)

// Prefer is a list of preferences (RFC 7240); respond-async is one of
// them in any case, with or without parameters.
func TestPreferAsync(t *testing.T) {
	for header, want := range map[string]bool{"respond-async": true, "Respond-Async": true, "wait=10, respond-async": true,
		"respond-async; foo=bar": true, "return=minimal": false, "": false, "respond-asynchronously": false} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if header != "" {
			r.Header.Set("Prefer", header)
		}
		if got := preferAsync(r); got != want {
			t.Errorf("Prefer %q: async %v, want %v", header, got, want)
		}
	}
}
