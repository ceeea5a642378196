package rest

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/ops/health"
)

// QueuesPath is where the asynq dashboard (asynqmon) is mounted.
const QueuesPath = "/admin/queues"

// PlaygroundPath is where GraphiQL is served in development.
const PlaygroundPath = "/admin/graphql"

// adminToken says whether a request carries the admin token, as a Bearer
// token (curl, scripts) or as the password of HTTP Basic authentication
// (a browser, which then sends it with every request the dashboard makes).
func (s *Server) adminToken(r *http.Request) bool {
	if s.AdminToken == "" {
		return false
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		_, token, ok = r.BasicAuth()
	}
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.AdminToken)) == 1
}

// admin puts a handler behind the admin token. Without MSGSVC_ADMIN_TOKEN
// nothing opens it. A browser sends the dashboard's Basic credentials with
// any request, another site's form POST too: unsafe methods from another
// origin (Sec-Fetch-Site, else Origin against Host) are refused before the
// token is looked at.
func (s *Server) admin(h http.Handler) http.Handler {
	origins := http.NewCrossOriginProtection()
	origins.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apierr.New(apierr.CrossOriginRefused,
			"%s refuses %s from another site's page; use the dashboard itself or send the admin token from a script.", r.URL.Path, r.Method))
	}))
	return origins.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.adminToken(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="msgsvc admin", charset="UTF-8"`)
			writeError(w, r, apierr.New(apierr.InvalidAPIKey,
				"%s needs the admin token (MSGSVC_ADMIN_TOKEN), as a Bearer token or the password of Basic authentication.", r.URL.Path))
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// mountOps adds the routes of operations outside /v1: the probes, the
// queue dashboard and, in development, the GraphQL playground.
func (s *Server) mountOps(r chi.Router) {
	probes := s.Probes
	if probes == nil {
		probes = &health.Checker{}
	}
	r.Method(http.MethodGet, "/healthz", probes)
	r.Method(http.MethodGet, "/readyz", probes)
	if s.Queues != nil {
		queues := s.admin(s.needsRedis(s.Queues))
		r.Handle(QueuesPath, queues)
		r.Handle(QueuesPath+"/*", queues)
	}
	if s.Playground {
		r.Method(http.MethodGet, PlaygroundPath, s.admin(s.playground()))
		r.Get(graphiqlAssetsPath+"*", graphiqlAsset)
	}
}

// needsRedis answers 503 service_unavailable, with Retry-After, when
// QueuesRedis does not answer: the dashboard reads nothing but Redis.
func (s *Server) needsRedis(h http.Handler) http.Handler {
	if s.QueuesRedis == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		err := s.QueuesRedis(ctx)
		cancel()
		if err != nil {
			slog.Warn("queue dashboard: Redis is not answering", "request_id", requestID(r.Context()), "err", err)
			e := apierr.New(apierr.ServiceUnavailable, "The job queue (Redis) is not answering; retry after Retry-After.")
			e.RetryAfter = unavailableRetry
			writeError(w, r, e)
			return
		}
		h.ServeHTTP(w, r)
	})
}
