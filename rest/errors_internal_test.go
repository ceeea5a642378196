package rest

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/graph/apierr"
)

// TestUnavailableTellsOutagesFromBugs: connection failures of Postgres (and
// of any dial) are outages worth a retry; other errors are not.
func TestUnavailableTellsOutagesFromBugs(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"dial refused":             {fmt.Errorf("repo: key by hash: %w", refused), true},
		"refusal formatted as %v":  {fmt.Errorf("repo: %v", refused), true},
		"reset":                    {fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		"dial timeout":             {&net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, true},
		"deadline on connect":      {fmt.Errorf("connect: %w", context.DeadlineExceeded), true},
		"bad connection":           {fmt.Errorf("query: %w", driver.ErrBadConn), true},
		"cut mid-answer":           {fmt.Errorf("query: %w", io.ErrUnexpectedEOF), true},
		"pq connection failure":    {&pq.Error{Code: "08006"}, true},
		"pq cannot connect":        {&pq.Error{Code: "08001"}, true},
		"pq shutting down":         {&pq.Error{Code: "57P01"}, true},
		"pq starting up":           {&pq.Error{Code: "57P03"}, true},
		"pq too many connections":  {&pq.Error{Code: "53300"}, true},
		"pq unique violation":      {&pq.Error{Code: "23505"}, false},
		"pq undefined table":       {fmt.Errorf("list: %w", &pq.Error{Code: "42P01"}), false},
		"pq bad bytes":             {&pq.Error{Code: "22021"}, false},
		"a bug":                    {errors.New("nil map"), false},
		"client went away":         {context.Canceled, false},
		"an API error is not here": {apierr.New(apierr.InvalidRequest, "x"), false},
	} {
		if got := unavailable(tc.err); got != tc.want {
			t.Errorf("%s: unavailable(%v) = %v, want %v", name, tc.err, got, tc.want)
		}
	}
}

// TestWriteErrorAnswersAnOutageWith503: the one place errors become
// responses answers an outage 503 service_unavailable with Retry-After, and
// anything else unknown still 500 internal_error without one.
func TestWriteErrorAnswersAnOutageWith503(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{fmt.Errorf("repo: %w", refused), 503, "service_unavailable", "5"},
		{&pq.Error{Code: "57P03", Message: "the database system is starting up"}, 503, "service_unavailable", "5"},
		{errors.New("boom"), 500, "internal_error", ""},
	} {
		w := httptest.NewRecorder()
		writeError(w, httptest.NewRequest("GET", "/v1/conversations", nil), tc.err)
		var body errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if w.Code != tc.status || body.Error.Code != tc.code || w.Header().Get("Retry-After") != tc.retryAfter {
			t.Errorf("%v: %d %s Retry-After %q, want %d %s %q", tc.err, w.Code, body.Error.Code, w.Header().Get("Retry-After"), tc.status, tc.code, tc.retryAfter)
		}
	}
}
