package rest

import (
	"fmt"
	"net/http"
	"runtime/debug"
)

// recoverPanics answers a panic anywhere below it as 500 internal_error,
// logged with the request id and the stack, so one bad request never takes
// the process down. http.ErrAbortHandler keeps its meaning: abort quietly.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				writeError(w, r, panicError(v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// call runs an endpoint, turning its panic into an internal error, so the
// idempotency recorder sees a 500 and releases the key for a retry.
func call(r *http.Request, h endpoint) (status int, payload any, err error) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			err = panicError(v)
		}
	}()
	status, payload, err = h(r)
	if err == nil {
		noteConversation(r.Context(), payload)
	}
	return status, payload, err
}

func panicError(v any) error {
	return fmt.Errorf("panic: %v\n%s", v, debug.Stack())
}
