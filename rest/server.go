package rest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/clientaddr"
)

// Server is the HTTP facade over the resolvers.
type Server struct {
	Resolver   *graph.Resolver
	Limiter    Limiter
	AdminToken string
	// Widget is website chat's visitor API and widget.js; nil serves neither.
	Widget *Widget
	// Probes answer /healthz and /readyz; nil answers both with the
	// process being up.
	Probes http.Handler
	// Queues is the asynq dashboard, served at /admin/queues behind the
	// admin token; nil leaves it out.
	Queues http.Handler
	// Playground serves GraphiQL over /graphql at /admin/graphql, behind
	// the admin token: for development only (not with MSGSVC_ENV=production).
	Playground bool
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (MSGSVC_TRUSTED_PROXIES); the client address keys the
	// widget's per-IP limit, API keys' ip_allowlist and the request log.
	TrustedProxies clientaddr.Proxies
	// Demo serves /demo, a page with the widget of the demo workspace's
	// website (DemoWebsite): for development only.
	Demo bool
	// QueuesRedis pings the Redis the dashboard reads; when it fails the
	// dashboard answers 503 service_unavailable. nil skips the check.
	QueuesRedis func(context.Context) error

	drainInit, drainOnce sync.Once
	draining             chan struct{}
	// streams counts the open event streams by key (MaxStreamsPerKey).
	streamsMu sync.Mutex
	streams   map[string]int
	// Meta configures /hooks/meta.
	Meta MetaHooks
	// BodyTimeout bounds how long a request body may take to arrive after
	// its headers (MSGSVC_HTTP_BODY_TIMEOUT); zero is DefaultBodyTimeout.
	BodyTimeout time.Duration
	// RequestLog takes every authenticated /v1 request into the request
	// log (requestlog.go); nil keeps none.
	RequestLog *requestlog.Recorder
	// PublicURL is MSGSVC_PUBLIC_URL: its origin is trusted by the
	// cross-origin checks, and https makes the session cookie Secure and
	// __Host- prefixed.
	PublicURL string
	// SessionRecheck is how often a member's open WebSocket checks her
	// session (0: DefaultSessionRecheck).
	SessionRecheck time.Duration

	originOnce sync.Once
	origins    *http.CrossOriginProtection
}

type ctxKey int

const requestIDKey ctxKey = iota

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// endpoint is one /v1 handler: it returns the status and payload of a
// success, or an error that writeError answers.
type endpoint func(r *http.Request) (int, any, error)

// Handler returns the whole HTTP surface.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.withRequestID, s.observe, recoverPanics, s.bodyDeadline)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apierr.New(apierr.RouteNotFound, "No route %s %s.", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apierr.New(apierr.MethodNotAllowed, "%s is not allowed on %s.", r.Method, r.URL.Path))
	})
	r.Handle("/graphql", s.graphql())
	s.mountApp(r)
	s.mountWidget(r)
	s.mountWebApp(r)
	if s.Demo && s.Widget != nil {
		r.Get("/demo", serveDemo)
	}
	s.mountOps(r)
	r.Get("/hooks/meta", s.metaHandshake)
	r.Post("/hooks/meta", s.metaHook)
	r.Get("/unsubscribe/{token}", s.unsubscribe)
	r.Post("/unsubscribe/{token}", s.unsubscribe)
	r.Route("/v1", func(v chi.Router) {
		v.Get("/openapi.json", serveOpenAPI)
		v.Method("GET", "/channels", s.api("", s.channels))
		v.Method("GET", "/usage", s.api("", s.usage))
		v.Method("GET", "/conversations", s.api("conversations:read", s.listConversations))
		v.Method("GET", "/conversations/{id}", s.api("conversations:read", s.getConversation))
		v.Method("PATCH", "/conversations/{id}", s.api("conversations:write", s.patchConversation))
		v.Method("GET", "/conversations/{id}/messages", s.api("messages:read", s.listMessages))
		v.Method("GET", "/contacts", s.api("contacts:read", s.listContacts))
		v.Method("POST", "/contacts", s.api("contacts:write", s.createContact))
		v.Method("GET", "/contacts/{id}", s.api("contacts:read", s.getContact))
		v.Method("PATCH", "/contacts/{id}", s.api("contacts:write", s.patchContact))
		v.Method("DELETE", "/contacts/{id}", s.api("contacts:write", s.deleteContact))
		v.Method("GET", "/events/stream", s.authorized("webhooks:manage", s.eventStream))
		v.Method("GET", "/events/{id}", s.api("webhooks:manage", s.getEvent))
		v.Method("GET", "/webhook-endpoints", s.api("webhooks:manage", s.listWebhookEndpoints))
		v.Method("POST", "/webhook-endpoints", s.api("webhooks:manage", s.createWebhookEndpoint))
		v.Method("PATCH", "/webhook-endpoints/{id}", s.api("webhooks:manage", s.patchWebhookEndpoint))
		v.Method("DELETE", "/webhook-endpoints/{id}", s.api("webhooks:manage", s.deleteWebhookEndpoint))
		v.Method("POST", "/webhook-endpoints/{id}/roll-secret", s.api("webhooks:manage", s.rollWebhookSecret))
		v.Method("POST", "/webhook-endpoints/{id}/verify", s.api("webhooks:manage", s.verifyWebhookEndpoint))
		v.Method("GET", "/webhook-deliveries", s.api("webhooks:manage", s.listWebhookDeliveries))
		v.Method("POST", "/webhook-deliveries/{id}/replay", s.api("webhooks:manage", s.replayWebhookDelivery))
		v.Method("POST", "/test/inbound", s.api("messages:write", s.inbound))
		v.Method("POST", "/messages", s.sendAPI(s.sendMessage))
		v.Method("GET", "/messages/{id}", s.api("messages:read", s.getMessage))
		v.Method("GET", "/messaging-window", s.api("messages:read", s.messagingWindow))
		v.Method("GET", "/whatsapp/templates", s.api("", s.listTemplates))
		v.Method("POST", "/whatsapp/marketing-messages", s.sendAPI(s.sendMarketingMessage))
		v.Method("GET", "/email/senders", s.api("", s.emailSenders))
		v.Method("POST", "/files", s.api("messages:write", s.uploadFile))
		v.Get("/files/{id}/content", s.fileContent)
		v.Get("/email/images", s.emailImage)
		v.Method("POST", "/files/{id}/refetch", s.api("messages:write", s.refetchFile))
	})
	return r
}

func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := repo.NewID("req_", time.Now())
		w.Header().Set("X-Request-Id", id)
		// Every response names the version it was served in;
		// a key's own version replaces this once the key is known.
		w.Header().Set("Service-Version", auth.ServedVersion)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// api wraps an endpoint in the pipeline every /v1 route shares, in the order
// of docs/api.md (Requests and errors): authentication, version, rate
// limit, scope; then a POST's Idempotency-Key.
func (s *Server) api(scope string, h endpoint) http.Handler {
	return s.keyed(scope, func(r *http.Request, _ sendKey) (int, any, error) { return h(r) })
}

// sendAPI is api for a send route (messages:write), whose endpoint is
// given the Idempotency-Key it runs under.
func (s *Server) sendAPI(h keyedEndpoint) http.Handler { return s.keyed("messages:write", h) }

func (s *Server) keyed(scope string, h keyedEndpoint) http.Handler {
	return s.authorized(scope, func(w http.ResponseWriter, r *http.Request, a *auth.Actor) {
		if key := r.Header.Get("Idempotency-Key"); key != "" && r.Method == http.MethodPost {
			s.idempotent(w, r, a, key, h)
			return
		}
		serve(w, r, h.with(sendKey{}))
	})
}

// authorized runs the checks every /v1 route shares (api's, without the
// Idempotency-Key), then next with the caller in the request's context;
// streaming routes write their own answer.
func (s *Server) authorized(scope string, next func(http.ResponseWriter, *http.Request, *auth.Actor)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ws, err := s.authenticate(r)
		if a != nil {
			// The request log keeps a known key's refusals too.
			noteCaller(r.Context(), a)
		}
		if err == nil {
			err = checkEdge(r)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		version := a.Version
		if v := r.Header.Get("Service-Version"); v != "" {
			if v != auth.ServedVersion {
				writeError(w, r, apierr.New(apierr.InvalidVersion, "Service-Version %q is not served; use %s.", v, auth.ServedVersion))
				return
			}
			version = v
		}
		w.Header().Set("Service-Version", version)
		if s.Limiter != nil {
			if err := s.rateLimit(w, r, a.KeyID, ws); err != nil {
				writeError(w, r, err)
				return
			}
		}
		if scope != "" && !a.HasScope(scope) {
			writeError(w, r, apierr.New(apierr.InsufficientScope, "This key lacks the %s permission.", scope))
			return
		}
		next(w, r.WithContext(auth.WithActor(r.Context(), a)), a)
	})
}

func (s *Server) authenticate(r *http.Request) (*auth.Actor, *repo.Workspace, error) {
	header := r.Header.Get("Authorization")
	secret, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return nil, nil, apierr.New(apierr.InvalidAPIKey, "Send the API key as Authorization: Bearer <key>.")
	}
	return s.Resolver.Auth.Authenticate(r.Context(), strings.TrimSpace(secret), clientIP(r))
}
