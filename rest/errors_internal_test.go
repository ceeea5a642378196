package rest

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/vektah/gqlparser/v2/gqlerror"
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
		"schema behind (repo)":     {fmt.Errorf("list: %w", fmt.Errorf("%w: %w", repo.ErrSchemaBehind, &pq.Error{Code: "42P01"})), true},
		"read-only transaction":    {fmt.Errorf("save: %w", &pq.Error{Code: "25006", Message: "cannot execute UPDATE in a read-only transaction"}), true},
		"standby refuses writes":   {&pq.Error{Code: "0A000", Message: "cannot set transaction read-write mode during recovery"}, true},
		"feature not supported":    {&pq.Error{Code: "0A000", Message: "FOR UPDATE is not allowed with GROUP BY clause"}, false},
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

// TestGraphQLResolverErrors: a resolver's own failure reaches a GraphQL
// client as the REST API would answer it, never as the driver's text.
func TestGraphQLResolverErrors(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	refusal := apierr.New(apierr.ConversationNotFound, "No conversation conv_x.")
	parse := gqlerror.Errorf("Cannot query field \"nope\".")
	for name, tc := range map[string]struct {
		err      error
		wantCode apierr.Code
		same     bool // passed through unchanged
	}{
		"an API refusal":         {refusal, apierr.ConversationNotFound, true},
		"gqlgen's own error":     {parse, "", true},
		"a driver's failure":     {fmt.Errorf("repo: %w", &pq.Error{Code: "42P01", Message: `relation "secret_table" does not exist`}), apierr.InternalError, false},
		"Postgres not answering": {fmt.Errorf("repo: %w", refused), apierr.ServiceUnavailable, false},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := graphqlErrors(context.Background(), func(context.Context) (any, error) { return "partial", tc.err })
			if res != "partial" {
				t.Errorf("result %v, want the resolver's", res)
			}
			if tc.same {
				if err != tc.err {
					t.Fatalf("error %v, want %v unchanged", err, tc.err)
				}
				return
			}
			e, ok := apierr.As(err)
			entry, _ := apierr.Lookup(tc.wantCode)
			if !ok || e.Code != tc.wantCode || e.Message != entry.Message {
				t.Fatalf("error %#v, want %s with the table's message", err, tc.wantCode)
			}
		})
	}
	if res, err := graphqlErrors(context.Background(), func(context.Context) (any, error) { return 1, nil }); res != 1 || err != nil {
		t.Errorf("a resolver that succeeds answered %v, %v", res, err)
	}
}

// TestClientGoneIsNoInternalError: an error from a request whose client
// went away is not an internal error: no ERROR line, status 499; the same
// error with the client still there is one.
func TestClientGoneIsNoInternalError(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	err := fmt.Errorf("repo: website: %w", context.Canceled)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	writeError(w, httptest.NewRequest("GET", "/widget/v1/ws", nil).WithContext(ctx), err)
	if w.Code != statusClientClosed || w.Body.Len() != 0 || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("client gone: %d %q, logs %q", w.Code, w.Body, logs.String())
	}

	logs.Reset()
	w = httptest.NewRecorder()
	writeError(w, httptest.NewRequest("GET", "/widget/v1/ws", nil), err)
	if w.Code != 500 || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("client still there: %d, logs %q", w.Code, logs.String())
	}
}
