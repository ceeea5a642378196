package send

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Sender is who an internal send speaks for: the AI
// (Type "ai") or an agent (Type "agent", with her name).
type Sender struct {
	Type string
	Name *string
}

// Reply sends text on a conversation as the AI or an agent. It runs the
// same pipeline as POST /v1/messages (every channel rule, the sandbox for
// test data, the provider for live data, message.sent), except that an
// agent's pause of integration replies does not apply to the service's
// own replies and no API quota is counted.
func (s *Service) Reply(ctx context.Context, scope repo.Scope, conversationID, text string, sender Sender) (*model.Message, error) {
	return s.send(ctx, internalActor(scope), Request{Input: model.SendMessageInput{ConversationID: &conversationID, Text: &text}},
		false, &sender)
}

// internalActor is who an internal send runs as: the workspace and mode
// the service read the conversation from, with every scope. No API key
// asked for the send, so there are no key restrictions (channels,
// websites, scopes) to check: the service answers a conversation it
// already holds in that scope, and the send's own rules still apply.
func internalActor(s repo.Scope) *auth.Actor {
	return &auth.Actor{WorkspaceID: s.WorkspaceID, Livemode: s.Livemode, Scopes: []string{"*"}, Version: auth.ServedVersion}
}
