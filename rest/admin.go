package rest

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/apierr"
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
// nothing opens it.
func (s *Server) admin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.adminToken(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="msgsvc admin", charset="UTF-8"`)
			writeError(w, r, apierr.New(apierr.InvalidAPIKey,
				"%s needs the admin token (MSGSVC_ADMIN_TOKEN), as a Bearer token or the password of Basic authentication.", r.URL.Path))
			return
		}
		h.ServeHTTP(w, r)
	})
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
		r.Handle(QueuesPath, s.admin(s.Queues))
		r.Handle(QueuesPath+"/*", s.admin(s.Queues))
	}
	if s.Playground {
		r.Method(http.MethodGet, PlaygroundPath, s.admin(s.playground()))
	}
}
