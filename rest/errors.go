// Package rest keeps the /v1 contract: routing, authentication and key
// restrictions, versions, rate limits, cursors and the {data}/{error}
// envelopes. A handler decodes, makes one resolver call and encodes.
package rest

import (
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/msgsvc/msgsvc/graph/apierr"
)

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

// writeError answers an error in the envelope, with the status apierr's
// table gives its code. Errors without a code of the table are internal:
// logged with the request id, answered without internals.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	id := requestID(r.Context())
	e, ok := apierr.As(err)
	var entry apierr.Entry
	if ok {
		entry, ok = apierr.Lookup(e.Code)
	}
	if !ok {
		slog.Error("internal error", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		entry, _ = apierr.Lookup(apierr.InternalError)
		e = &apierr.Error{Code: apierr.InternalError, Message: entry.Message}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	writeJSON(w, entry.Status, errorBody{errorObject{Code: string(e.Code), Message: e.Message, RequestID: id}})
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
