// Package health answers the probes: GET /healthz says the
// process is up; GET /readyz says Postgres and Redis answered within a
// bound, each as a usable store (the checks are the caller's: a database
// that takes writes and has the binary's migrations, a Redis primary). Both are outside /v1 and need no key. The answers name each check
// and its outcome, never an error's text (the probes are public; errors are
// logged instead).
package health

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"
)

// DefaultTimeout bounds every readiness check.
const DefaultTimeout = 2 * time.Second

// Check is one dependency's readiness check.
type Check func(ctx context.Context) error

// Checker serves /healthz and /readyz.
type Checker struct {
	// Checks are run concurrently by /readyz, by name ("postgres", "redis").
	Checks map[string]Check
	// Timeout bounds each check; zero means DefaultTimeout.
	Timeout time.Duration
	// Interval is how long a /readyz answer is reused; zero means
	// DefaultInterval.
	Interval time.Duration
	// Clock is the time; nil is time.Now.
	Clock func() time.Time

	mu     sync.Mutex
	last   Answer
	lastAt time.Time
}

// DefaultInterval bounds the probes: /readyz needs no key, and its answer
// is reused for a second however often it is asked.
const DefaultInterval = time.Second

// Answer is the body of both probes.
type Answer struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// ServeHTTP answers /readyz with the checks and anything else (/healthz)
// with the process being up.
func (c *Checker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/readyz" {
		write(w, http.StatusOK, Answer{Status: "ok"})
		return
	}
	answer := c.recent(r.Context())
	status := http.StatusOK
	if answer.Status != "ok" {
		status = http.StatusServiceUnavailable
	}
	write(w, status, answer)
}

// recent is Ready's answer of the last Interval, or a fresh one: one probe
// at a time, the callers that waited for it sharing its answer.
func (c *Checker) recent(ctx context.Context) Answer {
	now, interval := time.Now, c.Interval
	if c.Clock != nil {
		now = c.Clock
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lastAt.IsZero() && now().Sub(c.lastAt) < interval {
		return c.last
	}
	c.last = c.Ready(context.WithoutCancel(ctx)) // one caller leaving does not fail the others
	c.lastAt = now()
	return c.last
}

// Ready runs every check concurrently, each within the timeout. A check
// that does not return in time counts as "timeout" even if it ignores its
// context.
func (c *Checker) Ready(ctx context.Context) Answer {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var mu sync.Mutex
	answer := Answer{Status: "ok", Checks: map[string]string{}}
	var wg sync.WaitGroup
	names := make([]string, 0, len(c.Checks))
	for name := range c.Checks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		wg.Add(1)
		go func(name string, check Check) {
			defer wg.Done()
			outcome := run(ctx, name, check)
			mu.Lock()
			defer mu.Unlock()
			answer.Checks[name] = outcome
			if outcome != "ok" {
				answer.Status = "unavailable"
			}
		}(name, c.Checks[name])
	}
	wg.Wait()
	return answer
}

// run is one check, bounded by ctx even when the check itself is not.
func run(ctx context.Context, name string, check Check) string {
	done := make(chan error, 1)
	go func() { done <- check(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		slog.Warn("readyz: check timed out", "check", name)
		return "timeout"
	default:
		slog.Warn("readyz: check failed", "check", name, "err", err)
		return "failed"
	}
}

func write(w http.ResponseWriter, status int, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(a); err != nil {
		slog.Debug("health: write answer", "err", err)
	}
}
