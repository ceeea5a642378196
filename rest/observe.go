package rest

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/ops/metrics"
)

// requestInfo is what the request log learns while the request runs: the
// client's address, and the caller once the key is known.
type requestInfo struct {
	client    netip.Addr
	workspace string
	livemode  bool
	known     bool
	// key, errorCode and conversation feed the request log
	// (requestlog.go).
	key, errorCode, conversation string
}

const requestInfoKey ctxKey = iota + 100

// noteCaller records the authenticated caller for the request's log line.
func noteCaller(ctx context.Context, a *auth.Actor) {
	if info, ok := ctx.Value(requestInfoKey).(*requestInfo); ok && info != nil && a != nil {
		info.workspace, info.livemode, info.known, info.key = a.WorkspaceID, a.Livemode, true, a.KeyID
	}
}

// clientIP is the address of the request's client (see
// clientaddr.Proxies.Of), nil when it has none.
func clientIP(r *http.Request) net.IP {
	info, ok := r.Context().Value(requestInfoKey).(*requestInfo)
	if !ok || info == nil || !info.client.IsValid() {
		return nil
	}
	return net.IP(info.client.AsSlice())
}

// routeOf is the matched route pattern of a request, never its raw path.
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// observe writes one log line per request (request id, client address,
// workspace, route pattern, status, duration) and records the request's
// metrics. It logs no URL, query, header or body: those can hold tokens and
// messages.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{client: s.TrustedProxies.Of(r.RemoteAddr, r.Header.Values("X-Forwarded-For"))}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), requestInfoKey, info)))
		status, d, route := sw.code(), time.Since(start), routeOf(r)
		metrics.ObserveRequest(r.Method, route, status, d)
		s.logRequest(r, info, route, status, start, d)
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelWarn
		}
		attrs := []slog.Attr{slog.String("request_id", requestID(r.Context())), slog.String("method", r.Method),
			slog.String("route", route), slog.Int("status", status),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000)}
		if info.client.IsValid() {
			attrs = append(attrs, slog.String("client_ip", info.client.String()))
		}
		if info.known {
			attrs = append(attrs, slog.String("workspace", info.workspace), slog.Bool("livemode", info.livemode))
		}
		slog.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// statusWriter remembers the status a handler answered. It passes Flush
// (Server-Sent Events) and Hijack (WebSockets) through, and Unwrap for
// http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		if w.status == 0 {
			w.status = http.StatusSwitchingProtocols
		}
		return h.Hijack()
	}
	return nil, nil, errors.New("rest: the connection cannot be hijacked")
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
