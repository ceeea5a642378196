package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// The AI's tasks: a dispatch pass after every commit that
// recorded events (and every second), and the answers of one conversation.
const (
	TypeAIDispatch = "ai:dispatch"
	TypeAIReply    = "ai:reply"
)

// AIPayload names the conversation whose pending messages to answer.
type AIPayload struct {
	ConversationID string `json:"conversation_id"`
}

// AI is the processing service behind the AI's tasks; ai.Service is one.
type AI interface {
	Dispatch(ctx context.Context) error
	Answer(ctx context.Context, conversationID string) error
}

// AIDispatch asks for a dispatch pass, unless one waits in the queue
// already (enqueueCoalesced); one that runs right now may have read before
// the caller's change, which the next call (RunAIDispatch's tick) covers.
func (c *Client) AIDispatch(ctx context.Context) error {
	_, err := c.enqueueCoalesced(ctx, c.Queue, TypeAIDispatch)
	return err
}

// AIReplyDue asks for the answers of a conversation's pending messages. Two
// tasks of one conversation are harmless: one holds it, the other leaves.
func (c *Client) AIReplyDue(ctx context.Context, conversationID string) error {
	payload, err := json.Marshal(AIPayload{ConversationID: conversationID})
	if err != nil {
		return err
	}
	err = c.enqueue(ctx, asynq.NewTask(TypeAIReply, payload), asynq.Queue(c.Queue), asynq.MaxRetry(5))
	return err
}

// AIDispatchHandler runs a dispatch pass.
func AIDispatchHandler(ai AI) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, _ *asynq.Task) error {
		return ai.Dispatch(ctx)
	})
}

// AIReplyHandler answers one conversation.
func AIReplyHandler(ai AI) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		var p AIPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.ConversationID == "" {
			return fmt.Errorf("%s: bad payload: %w", TypeAIReply, asynq.SkipRetry)
		}
		return ai.Answer(ctx, p.ConversationID)
	})
}

// RunAIDispatch asks for a dispatch pass every interval until ctx ends, so
// work whose notice was lost, and agents freed without an event (one made
// active), are taken up within the interval.
func RunAIDispatch(ctx context.Context, c *Client, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := c.AIDispatch(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("ai dispatch not enqueued", "err", err)
			}
		}
	}
}
