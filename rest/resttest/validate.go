package resttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/msgsvc/msgsvc/rest"
)

var (
	docOnce   sync.Once
	docRouter routers.Router
	docErr    error
)

// openAPIRouter finds operations of rest/openapi.json.
func openAPIRouter() (routers.Router, error) {
	docOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(rest.OpenAPIDocument())
		if err != nil {
			docErr = err
			return
		}
		doc.Servers = nil // match any host: the test server's
		docRouter, docErr = gorillamux.NewRouter(doc)
	})
	return docRouter, docErr
}

// ValidateAgainstOpenAPI wraps a handler so every /v1 answer is checked
// against rest/openapi.json: the response's status, headers and body; the
// error code against the operation's x-error-codes; and, for a success, the
// request too (a request the API accepted must be one the document allows).
// A mismatch fails the test.
func ValidateAgainstOpenAPI(t testing.TB, next http.Handler) http.Handler {
	router, err := openAPIRouter()
	if err != nil {
		t.Fatalf("rest/openapi.json: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/") {
			next.ServeHTTP(w, r)
			return
		}
		reqBody, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		tee := &teeWriter{ResponseWriter: w}
		next.ServeHTTP(tee, r)
		if tee.status == 0 {
			tee.status = http.StatusOK
		}
		check := r.Clone(context.WithoutCancel(r.Context()))
		check.Body = io.NopCloser(bytes.NewReader(reqBody))
		if problem := validateExchange(router, check, reqBody, tee); problem != "" {
			t.Errorf("%s %s answered %d, which rest/openapi.json does not allow: %s\nresponse: %.500s",
				r.Method, r.URL.RequestURI(), tee.status, problem, tee.body.Bytes())
		}
	})
}

// validateExchange returns what is wrong with one request and its answer.
func validateExchange(router routers.Router, r *http.Request, reqBody []byte, tee *teeWriter) string {
	route, params, err := router.FindRoute(r)
	if err != nil {
		code := errorCode(tee.body.Bytes())
		if code == "route_not_found" || code == "method_not_allowed" {
			return "" // a request outside the API, answered as such
		}
		return "no operation: " + err.Error()
	}
	mediaType, _, _ := mime.ParseMediaType(tee.Header().Get("Content-Type"))
	if mediaType == "text/event-stream" {
		return "" // a stream is not a document to validate
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true,
		ExcludeResponseBody: mediaType != "application/json"}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if tee.status < 300 {
		if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
			return "the request it accepted: " + err.Error()
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: tee.status,
		Header: tee.Header(), Body: io.NopCloser(bytes.NewReader(tee.body.Bytes())), Options: opts}
	if err := openapi3filter.ValidateResponse(r.Context(), out); err != nil {
		return err.Error()
	}
	if code := errorCode(tee.body.Bytes()); code != "" && tee.status >= 400 {
		var codes []string
		raw, _ := json.Marshal(route.Operation.Extensions["x-error-codes"])
		_ = json.Unmarshal(raw, &codes)
		if !slices.Contains(codes, code) {
			return "error code " + code + " is not in the operation's x-error-codes"
		}
	}
	return ""
}

func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// teeWriter passes a response through and keeps a copy of it.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer (Flush for
// streams).
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush through.
func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
