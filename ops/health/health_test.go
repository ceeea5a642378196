package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func probe(t *testing.T, c *Checker, path string) (int, Answer) {
	t.Helper()
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var a Answer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("%s: body %q: %v", path, rec.Body.String(), err)
	}
	return rec.Code, a
}

func TestReadyAllAnswer(t *testing.T) {
	ok := func(context.Context) error { return nil }
	code, a := probe(t, &Checker{Checks: map[string]Check{"postgres": ok, "redis": ok}}, "/readyz")
	if code != 200 || a.Status != "ok" || a.Checks["postgres"] != "ok" || a.Checks["redis"] != "ok" {
		t.Fatalf("got %d %+v", code, a)
	}
}

func TestReadyFailureHidesTheError(t *testing.T) {
	c := &Checker{Checks: map[string]Check{
		"postgres": func(context.Context) error { return nil },
		"redis":    func(context.Context) error { return errors.New("dial redis://:hunter2@10.0.0.1") },
	}}
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	var a Answer
	_ = json.Unmarshal([]byte(body), &a)
	if a.Checks["redis"] != "failed" || a.Checks["postgres"] != "ok" || a.Status != "unavailable" {
		t.Fatalf("answer %+v", a)
	}
	if strings.Contains(body, "hunter2") {
		t.Fatalf("the error text leaked: %s", body)
	}
}

// A check that ignores its context still cannot hold the probe past the
// bound.
func TestReadyIsBounded(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	c := &Checker{Timeout: 20 * time.Millisecond, Checks: map[string]Check{
		"postgres": func(context.Context) error { <-block; return nil },
	}}
	code, a := probe(t, c, "/readyz")
	if code != http.StatusServiceUnavailable || a.Checks["postgres"] != "timeout" {
		t.Fatalf("got %d %+v", code, a)
	}
}

func TestHealthzNeedsNoCheck(t *testing.T) {
	failing := func(context.Context) error { return errors.New("down") }
	code, a := probe(t, &Checker{Checks: map[string]Check{"postgres": failing}}, "/healthz")
	if code != 200 || a.Status != "ok" || a.Checks != nil {
		t.Fatalf("got %d %+v", code, a)
	}
}

// TestReadyProbesAtMostOncePerInterval: anonymous /readyz calls share one
// probe of each store per interval (on the injected clock); a later call
// probes again.
func TestReadyProbesAtMostOncePerInterval(t *testing.T) {
	var probes int
	now := time.Unix(1_800_000_000, 0)
	c := &Checker{Checks: map[string]Check{
		"postgres": func(context.Context) error { probes++; return nil },
	}, Clock: func() time.Time { return now }}
	for range 50 {
		if code, _ := probe(t, c, "/readyz"); code != 200 {
			t.Fatalf("status %d", code)
		}
	}
	if probes != 1 {
		t.Fatalf("50 calls within the interval probed %d times, want 1", probes)
	}
	now = now.Add(DefaultInterval)
	probe(t, c, "/readyz")
	if probes != 2 {
		t.Fatalf("a call an interval later probed %d times in all, want 2", probes)
	}
}
