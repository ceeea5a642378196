package rest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/member"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// The session cookie's names (docs/app.md): with the __Host- prefix when
// MSGSVC_PUBLIC_URL is https.
const (
	sessionCookie       = "msgsvc_session"
	secureSessionCookie = "__Host-msgsvc_session"
)

// secure says whether the public URL is https: the cookie is then Secure
// and __Host- prefixed.
func (s *Server) secure() bool { return strings.HasPrefix(s.PublicURL, "https://") }

func (s *Server) cookieName() string {
	if s.secure() {
		return secureSessionCookie
	}
	return sessionCookie
}

// sessionToken is the session cookie of a request, "" without one.
func (s *Server) sessionToken(r *http.Request) string {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

// setSessionCookie sets (or, with an empty token, clears) the cookie.
func (s *Server) setSessionCookie(w http.ResponseWriter, token string, expires time.Time) {
	c := &http.Cookie{Name: s.cookieName(), Value: token, Path: "/", HttpOnly: true, Secure: s.secure(),
		SameSite: http.SameSiteLaxMode, Expires: expires.UTC()}
	if token == "" {
		c.MaxAge = -1
		c.Expires = time.Time{}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.SetCookie(w, c)
}

// publicOrigin is MSGSVC_PUBLIC_URL's origin (scheme://host[:port]).
func (s *Server) publicOrigin() string {
	u, err := url.Parse(s.PublicURL)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// crossOrigin refuses state-changing requests another site's page sent
// (Go's CrossOriginProtection: Sec-Fetch-Site, else Origin against Host;
// the public URL's origin is trusted).
func (s *Server) crossOrigin() *http.CrossOriginProtection {
	s.originOnce.Do(func() {
		s.origins = http.NewCrossOriginProtection()
		if o := s.publicOrigin(); o != "" {
			_ = s.origins.AddTrustedOrigin(o)
		}
	})
	return s.origins
}

// refuseCrossOrigin answers 403 cross_origin_refused for a cross-origin
// POST, PUT, PATCH or DELETE.
func (s *Server) refuseCrossOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.crossOrigin().Check(r); err != nil {
			writeError(w, r, apierr.New(apierr.CrossOriginRefused, "Another site's page may not make this request."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin says whether a request's Origin is the public URL's or the
// request's own host: the check of a cookie-carrying WebSocket upgrade or
// event stream, which CrossOriginProtection leaves alone (they are GETs).
func (s *Server) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	if origin == s.publicOrigin() {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// mountApp serves the app's sign-in API under /app/api (docs/app.md).
func (s *Server) mountApp(r chi.Router) {
	r.Route("/app/api", func(a chi.Router) {
		a.Use(s.refuseCrossOrigin, noStore)
		a.Post("/sign-in/code", s.requestSignInCode)
		a.Post("/sign-in", s.signIn)
		a.Post("/sign-out", s.signOut)
		a.Get("/session", s.session)
	})
}

// noStore: no answer of the sign-in API is kept by a cache.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) requestSignInCode(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
	}
	if err := decodeApp(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Resolver.People.RequestSignInCode(r.Context(), in.Email); err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"sent": true})
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
		Code  string `json:"code"`
	}
	if err := decodeApp(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	in.Code = strings.TrimSpace(in.Code)
	done, err := s.Resolver.People.SignIn(r.Context(), in.Email, in.Code, r.UserAgent())
	if err != nil {
		writeError(w, r, err)
		return
	}
	if old := s.sessionToken(r); old != "" {
		// A new sign-in ends the session the browser had.
		if err := s.Resolver.People.SignOut(r.Context(), old); err != nil {
			writeError(w, r, err)
			return
		}
	}
	s.setSessionCookie(w, done.Token, done.Session.ExpiresAt)
	writeJSON(w, http.StatusOK, signedInBody(done.Member, done.Workspace))
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if token := s.sessionToken(r); token != "" {
		if err := s.Resolver.People.SignOut(r.Context(), token); err != nil {
			writeError(w, r, err)
			return
		}
	}
	s.setSessionCookie(w, "", time.Time{})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	_, m, err := s.Resolver.People.Authenticate(r.Context(), s.sessionToken(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	ws, err := s.Resolver.Store.Workspace(r.Context(), m.WorkspaceID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, signedInBody(m, ws))
}

func signedInBody(m *repo.Agent, ws *repo.Workspace) map[string]any {
	return map[string]any{
		"member":    map[string]string{"id": m.ID, "name": m.Name, "email": member.NormalEmail(m.Email), "role": m.Role},
		"workspace": map[string]string{"id": ws.ID, "name": ws.Name},
	}
}

// decodeApp reads a JSON body of the sign-in API.
func decodeApp(r *http.Request, dst any) error {
	_, err := decode(r, dst)
	return err
}

type sessionTokenKey struct{}

// withSessionToken carries a WebSocket upgrade's session cookie to its
// connection_init (graphqlWebsocket).
func withSessionToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, sessionTokenKey{}, token)
}

func sessionTokenFrom(ctx context.Context) string {
	t, _ := ctx.Value(sessionTokenKey{}).(string)
	return t
}
