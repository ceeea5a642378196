package rest

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// graphqlWebsocket serves subscriptions (conversationEvents) over
// graphql-ws. The connection_init payload carries what headers carry on
// HTTP: {"Authorization": "Bearer <admin token>", "Msgsvc-Workspace": "ws_…",
// "Msgsvc-Livemode": "true"}, or, with the app's session cookie on the
// upgrade (from our own origin: graphql), only {"Msgsvc-Livemode": …};
// without the admin token or a live session the connection is
// refused with close code 4403 (Forbidden, as graphql-transport-ws says), so
// a client does not retry it. The upgrade checks the page's origin as gorilla's default does
// (same host, or no Origin header as non-browser clients send).
func (s *Server) graphqlWebsocket() transport.Websocket {
	return transport.Websocket{
		KeepAlivePingInterval: 15 * time.Second,
		InitTimeout:           10 * time.Second,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			livemode := initValue(p, "Msgsvc-Livemode") == "true"
			if session := sessionTokenFrom(ctx); session != "" && initValue(p, "Authorization") == "" {
				a, err := s.Resolver.People.Actor(ctx, session, livemode)
				if err != nil {
					return forbidden(ctx, "sign_in_required: the session cookie is no live session")
				}
				return s.Resolver.WithLoaders(auth.WithActor(s.watchSession(ctx, session), a)), nil, nil
			}
			token, _ := strings.CutPrefix(initValue(p, "Authorization"), "Bearer ")
			if s.AdminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.AdminToken)) != 1 {
				return forbidden(ctx, "invalid_api_key: the connection_init payload needs Authorization: Bearer <admin token>")
			}
			workspace := initValue(p, "Msgsvc-Workspace")
			if workspace == "" {
				return forbidden(ctx, "invalid_request: name the workspace in the connection_init payload's Msgsvc-Workspace")
			}
			a := &auth.Actor{WorkspaceID: workspace, Livemode: livemode,
				Scopes: []string{"*"}, Version: auth.ServedVersion, Admin: true}
			return s.Resolver.WithLoaders(auth.WithActor(ctx, a)), nil, nil
		},
	}
}

// forbidden refuses a connection_init: close code 4403 with the reason.
func forbidden(ctx context.Context, reason string) (context.Context, *transport.InitPayload, error) {
	ctx = transport.WithWebsocketCloseCode(ctx, 4403)
	return transport.AppendCloseReason(ctx, reason), nil, errors.New(reason)
}

// initValue reads a connection_init field by name in any case.
func initValue(p transport.InitPayload, name string) string {
	for k, v := range p {
		if str, ok := v.(string); ok && strings.EqualFold(k, name) {
			return str
		}
	}
	return ""
}

func isWebsocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// DefaultSessionRecheck is how often an open WebSocket of a member asks
// whether her session still lives (SessionRecheck).
const DefaultSessionRecheck = 10 * time.Second

// watchSession returns ctx cancelled, which closes the connection (after
// an error saying sign_in_required), once the session ends (signed out, ended, expired, or its member
// switched off); it is asked every SessionRecheck.
func (s *Server) watchSession(ctx context.Context, session string) context.Context {
	every := s.SessionRecheck
	if every <= 0 {
		every = DefaultSessionRecheck
	}
	ctx, cancel := context.WithCancel(transport.AppendCloseReason(ctx, "sign_in_required: the session ended"))
	go func() {
		defer cancel()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := s.Resolver.People.StillSignedIn(ctx, session); err != nil {
					if _, ended := apierr.As(err); ended {
						return
					}
				}
			}
		}
	}()
	return ctx
}
