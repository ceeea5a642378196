package graph

import (
	"context"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/graph/ai"
)

// AIConfig chooses the AI's responder: the built-in one without a URL, an
// OpenAI-compatible chat-completions API with one.
type AIConfig struct {
	URL, Model, APIKey string
	// Timeout bounds one model call; past it the AI hands off (0: 30 s).
	Timeout time.Duration
}

func (c *AIConfig) responder() ai.Responder {
	if c == nil || c.URL == "" {
		return ai.Builtin{}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return &ai.LLM{URL: c.URL, Model: c.Model, APIKey: c.APIKey, Client: &http.Client{Timeout: timeout}}
}

// Processing is the service's own processing: AI replies, the human queue
// and its routing, and the agents' operations (graph/ai).
func (r *Resolver) Processing() *ai.Service {
	var jobs ai.Enqueuer
	if q, ok := r.Jobs.(ai.Enqueuer); ok {
		jobs = q
	}
	var timeout time.Duration
	if r.AI != nil {
		timeout = r.AI.Timeout
	}
	return &ai.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Sends: r.sends(),
		Responder: r.AI.responder(), Jobs: jobs, Timeout: timeout, Typing: r.Typing,
		Visitors: r.VisitorTypingFeed}
}

// Dispatch is the AI's dispatch pass (see ai.Service).
func (r *Resolver) Dispatch(ctx context.Context) error { return r.Processing().Dispatch(ctx) }

// Answer answers a conversation's pending messages (see ai.Service).
func (r *Resolver) Answer(ctx context.Context, conversationID string) error {
	return r.Processing().Answer(ctx, conversationID)
}
