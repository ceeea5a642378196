// Package rest keeps the /v1 contract: routing, authentication and key
// restrictions, versions, rate limits, cursors and the {data}/{error}
// envelopes. A handler decodes, makes one resolver call and encodes.
package rest

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// unavailableRetry is the Retry-After of a 503 service_unavailable: long
// enough not to hammer a database that is restarting, short enough that a
// client retries soon after a failover.
const unavailableRetry = 5 * time.Second

// statusClientClosed is the status logged for a request whose client went
// away before its answer (nginx's 499): none is sent to anyone.
const statusClientClosed = 499

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

// writeError answers an error in the envelope, with the status apierr's
// table gives its code (answerFor).
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	a, ok := answerFor(r, err)
	if !ok {
		w.WriteHeader(statusClientClosed)
		return
	}
	if a.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(a.retryAfter.Seconds()))))
	}
	if a.status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		// RFC 9110 11.6.1: a 401 names the scheme to use; the admin
		// login sets its own (Basic) first.
		w.Header().Set("WWW-Authenticate", `Bearer realm="msgsvc"`)
	}
	noteError(r.Context(), a.body.Code)
	writeJSON(w, a.status, errorBody{a.body})
}

// errorAnswer is what an error answers: its status, its error object and
// when to come back.
type errorAnswer struct {
	status     int
	body       errorObject
	retryAfter time.Duration
}

// answerFor is the answer of err, from apierr's table. Errors without a
// code of the table are internal: logged with the request id, answered
// without internals; a dependency that does not answer is a 503. It
// reports false, after logging it, for an error of a request its client
// cancelled: no one is left to answer.
func answerFor(r *http.Request, err error) (errorAnswer, bool) {
	id := requestID(r.Context())
	e, ok := apierr.As(err)
	var entry apierr.Entry
	if ok {
		entry, ok = apierr.Lookup(e.Code)
	}
	if !ok && unavailable(err) {
		slog.Warn("a dependency is not answering", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		e, ok = apierr.New(apierr.ServiceUnavailable, ""), true
		e.RetryAfter = unavailableRetry
		entry, _ = apierr.Lookup(apierr.ServiceUnavailable)
	}
	if !ok && errors.Is(r.Context().Err(), context.Canceled) {
		// The client went away (a visitor leaving mid-handshake, a
		// cancelled call), which failed what the request was doing:
		// nothing here went wrong.
		slog.Info("request cancelled by the client", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		return errorAnswer{}, false
	}
	if !ok {
		slog.Error("internal error", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		entry, _ = apierr.Lookup(apierr.InternalError)
		e = &apierr.Error{Code: apierr.InternalError, Message: entry.Message}
	}
	retry := e.RetryAfter
	if retry <= 0 && entry.Status == http.StatusServiceUnavailable {
		// Every 503 says when to come back (channel_unavailable included).
		retry = unavailableRetry
	}
	return errorAnswer{status: entry.Status, body: errorObject{Code: string(e.Code), Message: e.Message, RequestID: id},
		retryAfter: retry}, true
}

// unavailable tells an outage of a dependency (Postgres refusing or dropping
// connections, a dial that timed out, a server shutting down, a read-only
// database, a schema behind the migrations) from a bug: the first is worth a
// retry, the second is not.
func unavailable(err error) bool {
	var netErr net.Error
	var pqErr *pq.Error
	switch {
	case repo.Outage(err): // read-only, or behind the migrations
		return true
	case errors.As(err, &pqErr):
		switch pqErr.Code {
		case "57P01", "57P02", "57P03", "53300": // shutting down, crashed, starting up, too many connections
			return true
		}
		return pqErr.Code.Class() == "08" // connection exception
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		return true
	}
	// Some wrappers format the cause with %v and lose the chain.
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "connection reset by peer")
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		slog.Debug("write response; the client went away", "err", err)
	}
}

type dataBody struct {
	Data any `json:"data"`
}
