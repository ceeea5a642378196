package rest

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/web"
)

// mountWebApp serves the web app (package web) at /app/: its files, and
// index.html for the app's routes. /app/api/… is the sign-in API's; a path
// there that no route matches answers the API's 404, not the app.
func (s *Server) mountWebApp(r chi.Router) {
	app := web.Handler()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/app/api/") {
			writeError(w, r, apierr.New(apierr.RouteNotFound, "No route %s %s.", r.Method, r.URL.Path))
			return
		}
		app.ServeHTTP(w, r)
	})
	r.Handle("/app", h)
	r.Handle("/app/*", h)
}
