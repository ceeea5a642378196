package send

import (
	"context"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/ops/metrics"
)

// sendOutcome is the outcome label of a send: "sent", the API error code it
// was refused with, or "error" for a failure of ours (a 500).
func sendOutcome(err error) string {
	if err == nil {
		return "sent"
	}
	if e, ok := apierr.As(err); ok {
		return string(e.Code)
	}
	return "error"
}

// observe records a send's outcome by channel and mode. A reply
// refused before its conversation was read takes the conversation's channel;
// a request that names no valid channel counts as "unknown", so the label
// only ever holds channel names.
func (s *Service) observe(ctx context.Context, a *auth.Actor, in model.SendMessageInput, out *model.Message, err error) {
	channel := "unknown"
	switch {
	case out != nil:
		channel = out.Channel
	case in.Channel != nil && channels.Valid(*in.Channel):
		channel = *in.Channel
	case in.ConversationID != nil:
		if c, cerr := s.Store.Conversation(context.WithoutCancel(ctx), a.Scope(), *in.ConversationID); cerr == nil {
			channel = c.Channel
		}
	}
	metrics.ObserveSend(channel, a.Livemode, sendOutcome(err))
}

// observeCall records one provider call: "ok" or the code its
// refusal maps to, and how long the provider took.
func observeCall(channel string, err error, d time.Duration) {
	outcome := "ok"
	if err != nil {
		outcome = string(channels.AsRefusal(err).Code)
	}
	metrics.ObserveProviderCall(channel, outcome, d)
}
