package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/requestlog"
)

// The request log (Server.RequestLog): every authenticated /v1 request of
// a workspace, one requestlog.Entry handed over without waiting once the
// answer is written. requestInfo carries what it learns on the way: the
// key, the error code answered, the conversation touched.

// noteError records the code a request was answered with.
func noteError(ctx context.Context, code string) {
	if info, ok := ctx.Value(requestInfoKey).(*requestInfo); ok && info != nil {
		info.errorCode = code
	}
}

// noteConversation records the conversation a successful answer is about:
// a conversation, a message (sent or read), a simulated inbound message.
func noteConversation(ctx context.Context, payload any) {
	info, ok := ctx.Value(requestInfoKey).(*requestInfo)
	if !ok || info == nil || !info.known {
		return
	}
	switch p := payload.(type) {
	case *model.Conversation:
		if p != nil {
			info.conversation = p.ID
		}
	case *model.Message:
		if p != nil {
			info.conversation = p.ConversationID
		}
	case *model.InboundResult:
		if p != nil && p.Conversation != nil {
			info.conversation = p.Conversation.ID
		}
	}
}

// conversationRoute is the prefix of the routes whose {id} is a
// conversation.
const conversationRoute = "/v1/conversations/{id}"

// logRequest hands the request's entry to the request log, if it had a
// key of a workspace.
func (s *Server) logRequest(r *http.Request, info *requestInfo, route string, status int, start time.Time, d time.Duration) {
	if s.RequestLog == nil || !info.known || info.key == "" {
		return
	}
	at := start.Add(d) // when it was answered, on the service's clock (as events) when it has one
	if s.Resolver != nil && s.Resolver.Clock != nil {
		at = s.Resolver.Clock()
	}
	conv := info.conversation
	if conv == "" && status < 400 && strings.HasPrefix(route, conversationRoute) {
		conv = chi.URLParam(r, "id")
	}
	s.RequestLog.Record(requestlog.Entry{RequestID: requestID(r.Context()), WorkspaceID: info.workspace,
		KeyID: info.key, Livemode: info.livemode, At: at, Method: r.Method, Path: route, Status: status,
		ErrorCode: info.errorCode, Latency: d, ConversationID: conv})
}
