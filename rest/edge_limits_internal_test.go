package rest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestAdminQueuesRefusesCrossOrigin: a browser holding the dashboard's
// Basic credentials cannot be made to change the queues by another site
// (a form POST, which needs no preflight); the dashboard's own requests
// and non-browser clients still work.
func TestAdminQueuesRefusesCrossOrigin(t *testing.T) {
	const token = "admin-token-0123456789abcdef0123456789"
	var reached int
	s := &Server{AdminToken: token, Queues: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	})}
	h := s.Handler()
	post := func(headers map[string]string) *httptest.ResponseRecorder {
		form := url.Values{"queue": {"default"}}.Encode()
		r := httptest.NewRequest(http.MethodPost, "http://msgsvc.example"+QueuesPath+"/api/queues/default:pause", strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.SetBasicAuth("admin", token)
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for name, headers := range map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		"Sec-Fetch-Site same-site":  {"Sec-Fetch-Site": "same-site", "Origin": "https://other.msgsvc.example"},
		"Origin only, another host": {"Origin": "https://evil.example"},
	} {
		reached = 0
		w := post(headers)
		if w.Code != http.StatusForbidden || reached != 0 || !strings.Contains(w.Body.String(), `"cross_origin_refused"`) {
			t.Errorf("%s: %d, handler reached %d times: %s", name, w.Code, reached, w.Body)
		}
	}
	for name, headers := range map[string]map[string]string{
		"Sec-Fetch-Site same-origin": {"Sec-Fetch-Site": "same-origin", "Origin": "http://msgsvc.example"},
		"Origin of the same host":    {"Origin": "http://msgsvc.example"},
		"no browser headers (curl)":  nil,
	} {
		reached = 0
		if w := post(headers); w.Code != http.StatusNoContent || reached != 1 {
			t.Errorf("%s: %d, handler reached %d times: %s", name, w.Code, reached, w.Body)
		}
	}
}

// TestStreamSlotsPerKey: a key's streams count up to MaxStreamsPerKey, and
// a closed one frees its slot.
func TestStreamSlotsPerKey(t *testing.T) {
	s := &Server{}
	for i := range MaxStreamsPerKey {
		if !s.takeStream("key_a") {
			t.Fatalf("stream %d refused", i+1)
		}
	}
	if s.takeStream("key_a") || !s.takeStream("key_b") {
		t.Fatal("the cap is per key")
	}
	s.giveStream("key_a")
	if !s.takeStream("key_a") {
		t.Fatal("a closed stream's slot is not freed")
	}
}
