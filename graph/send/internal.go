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

type senderKey struct{}

func senderFrom(ctx context.Context) *Sender {
	s, _ := ctx.Value(senderKey{}).(*Sender)
	return s
}

// Reply sends text on a conversation as the AI or an agent. It runs the
// same pipeline as POST /v1/messages (every channel rule, the sandbox for
// test data, the provider for live data, message.sent), except that an
// agent's pause of integration replies does not apply to the service's
// own replies and no API quota is counted.
func (r *Service) Reply(ctx context.Context, s repo.Scope, conversationID, text string, sender Sender) (*model.Message, error) {
	ctx = auth.WithActor(ctx, &auth.Actor{WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
		Scopes: []string{"*"}, Version: auth.ServedVersion})
	ctx = context.WithValue(ctx, senderKey{}, &sender)
	return r.Send(ctx, model.SendMessageInput{ConversationID: &conversationID, Text: &text})
}
