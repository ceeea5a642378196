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
)

// graphqlWebsocket serves subscriptions (conversationEvents) over
// graphql-ws. The connection_init payload carries what headers carry on
// HTTP: {"Authorization": "Bearer <admin token>", "Msgsvc-Workspace": "ws_…",
// "Msgsvc-Livemode": "true"}; without the admin token the connection is
// refused. The upgrade checks the page's origin as gorilla's default does
// (same host, or no Origin header as non-browser clients send).
func (s *Server) graphqlWebsocket() transport.Websocket {
	return transport.Websocket{
		KeepAlivePingInterval: 15 * time.Second,
		InitTimeout:           10 * time.Second,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			token, _ := strings.CutPrefix(initValue(p, "Authorization"), "Bearer ")
			if s.AdminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.AdminToken)) != 1 {
				return ctx, nil, errors.New("invalid_api_key: the connection_init payload needs Authorization: Bearer <admin token>")
			}
			workspace := initValue(p, "Msgsvc-Workspace")
			if workspace == "" {
				return ctx, nil, errors.New("invalid_request: name the workspace in the connection_init payload's Msgsvc-Workspace")
			}
			a := &auth.Actor{WorkspaceID: workspace, Livemode: initValue(p, "Msgsvc-Livemode") == "true",
				Scopes: []string{"*"}, Version: auth.ServedVersion, Admin: true}
			return s.Resolver.WithLoaders(auth.WithActor(ctx, a)), nil, nil
		},
	}
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
