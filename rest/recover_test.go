package rest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPanicsAnswer500 checks that a panicking handler, whether inside an
// endpoint or anywhere below the router, answers 500 internal_error with the
// request id, and that the next request is served as usual.
func TestPanicsAnswer500(t *testing.T) {
	s := &Server{}
	ok := func(*http.Request) (int, any, error) { return http.StatusOK, map[string]string{"fine": "yes"}, nil }
	boom := func(*http.Request) (int, any, error) { panic("boom") }
	var fail []int
	tests := []struct {
		name    string
		handler http.Handler
	}{
		{"endpoint", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, boom) })},
		{"handler", recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { _ = fail[3] }))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := s.withRequestID(tt.handler)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/anything", nil))
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if got, want := rec.Code, 500; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got, want := body.Error.Code, "internal_error"; got != want {
				t.Errorf("code = %q, want %q", got, want)
			}
			if got, want := body.Error.RequestID, rec.Header().Get("X-Request-Id"); got == "" || got != want {
				t.Errorf("request_id = %q, want %q", got, want)
			}
			next := httptest.NewRecorder()
			s.withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, ok) })).
				ServeHTTP(next, httptest.NewRequest("GET", "/v1/anything", nil))
			if got, want := next.Code, 200; got != want {
				t.Errorf("next request: status = %d, want %d", got, want)
			}
		})
	}
}
