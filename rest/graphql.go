package rest

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/generated"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// graphql serves the same resolvers to internal dashboards. The admin token
// opens it; Msgsvc-Workspace and Msgsvc-Livemode say whose data to act on.
func (s *Server) graphql() http.Handler {
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: s.Resolver, Complexity: graphqlComplexity()})
	srv := handler.New(schema)
	srv.AddTransport(transport.POST{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(s.graphqlWebsocket())
	cache := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(graphqlMaxTokens)
	srv.Use(newGraphQLLimits(schema.Schema(), cache))
	// Only the admin token and signed-in members open /graphql, so
	// introspection is for them: GraphiQL's explorer and schema tools read
	// the schema (docs/reference.md describes it anyway).
	srv.Use(extension.Introspection{})
	srv.Use(extension.FixedComplexityLimit(graphqlMaxComplexity))
	srv.AroundFields(graphqlRoles)
	srv.AroundFields(graphqlText)
	srv.AroundFields(graphqlErrors)
	srv.AroundFields(graphqlClientGone)
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		out := graphql.DefaultErrorPresenter(ctx, err)
		if e, ok := apierr.As(err); ok {
			out.Message = e.Message
			out.Extensions = map[string]any{"code": e.Code}
			if e.Purpose != "" {
				out.Extensions["purpose"] = e.Purpose
			}
		} else if unavailable(err) {
			entry, _ := apierr.Lookup(apierr.ServiceUnavailable)
			out.Message = entry.Message
			out.Extensions = map[string]any{"code": apierr.ServiceUnavailable}
		} else if !errors.As(err, new(*gqlerror.Error)) {
			out.Message = "internal error"
		}
		return out
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := s.sessionToken(r)
		if isWebsocketUpgrade(r) {
			// Browsers cannot set headers on a WebSocket: the
			// connection_init payload carries them (graphqlWebsocket);
			// a session cookie comes with the upgrade, from our origin only.
			if session != "" {
				if !s.sameOrigin(r) {
					writeError(w, r, apierr.New(apierr.CrossOriginRefused, "Another site's page may not open this connection."))
					return
				}
				r = r.WithContext(withSessionToken(r.Context(), session))
			}
			srv.ServeHTTP(w, r)
			return
		}
		a, err := s.graphqlCaller(r, session)
		if err == nil {
			err = checkEdge(r)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		ctx := s.Resolver.WithLoaders(auth.WithActor(r.Context(), a))
		srv.ServeHTTP(w, r.WithContext(ctx))
	})
}

// graphqlCaller is who calls /graphql: the admin token (Bearer) acting on
// the workspace of Msgsvc-Workspace, else the member of the session cookie
// in her workspace (a cross-origin write refused); Msgsvc-Livemode: true
// picks live data.
func (s *Server) graphqlCaller(r *http.Request, session string) (*auth.Actor, error) {
	livemode := r.Header.Get("Msgsvc-Livemode") == "true"
	header := r.Header.Get("Authorization")
	if header == "" && session != "" {
		if err := s.crossOrigin().Check(r); err != nil {
			return nil, apierr.New(apierr.CrossOriginRefused, "Another site's page may not make this request.")
		}
		return s.Resolver.People.Actor(r.Context(), session, livemode)
	}
	token, _ := strings.CutPrefix(header, "Bearer ")
	if s.AdminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.AdminToken)) != 1 {
		return nil, apierr.New(apierr.InvalidAPIKey, "/graphql needs the admin token as a Bearer token, or a signed-in session.")
	}
	workspace := r.Header.Get("Msgsvc-Workspace")
	if workspace == "" {
		return nil, apierr.New(apierr.InvalidRequest, "Name the workspace in the Msgsvc-Workspace header.")
	}
	return &auth.Actor{WorkspaceID: workspace, Livemode: livemode,
		Scopes: []string{"*"}, Version: auth.ServedVersion, Admin: true}, nil
}

// graphqlRoles refuses a member a root field her role lacks (403
// forbidden, graph/auth's fieldRoles) before its resolver runs; the
// portal's services check the same table again (auth.ForField), for
// callers that reach them without this middleware.
func graphqlRoles(ctx context.Context, next graphql.Resolver) (any, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && rootObject(fc.Object) {
		if a := auth.ActorFrom(ctx); a != nil {
			if err := a.CheckField(fc.Field.Name); err != nil {
				return nil, err
			}
		}
	}
	return next(ctx)
}

func rootObject(name string) bool {
	return name == "Query" || name == "Mutation" || name == "Subscription"
}

// graphqlErrors keeps a resolver's failure to what the REST API would say of
// it: an API error as it is, an outage as service_unavailable, anything else
// logged with the request id and answered as internal_error, since a
// driver's text can name hosts, tables and values.
func graphqlErrors(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil && !unavailable(err) {
		return res, clientClosed() // the client left: nothing to log
	}
	if _, ok := apierr.As(err); ok || errors.As(err, new(*gqlerror.Error)) {
		return res, err
	}
	code := apierr.InternalError
	if unavailable(err) {
		code = apierr.ServiceUnavailable
		slog.WarnContext(ctx, "a dependency is not answering", "request_id", requestID(ctx), "route", "/graphql", "err", err)
	} else {
		slog.ErrorContext(ctx, "internal error", "request_id", requestID(ctx), "route", "/graphql", "err", err)
	}
	entry, _ := apierr.Lookup(code)
	return res, &apierr.Error{Code: code, Message: entry.Message}
}
