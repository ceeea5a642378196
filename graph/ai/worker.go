package ai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what the AI's work reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	WithLock(ctx context.Context, key string, fn func() error) (bool, error)
	NextAIWork(ctx context.Context, conversationID string) (*repo.AIWork, error)
	FinishAIWork(ctx context.Context, messageID, outcome string, at time.Time) error
	ConversationsWithAIWork(ctx context.Context, limit int) ([]string, error)
	WorkspacesWaiting(ctx context.Context) ([]string, error)
	Conversation(ctx context.Context, s repo.Scope, id string) (*repo.Conversation, error)
	Message(ctx context.Context, s repo.Scope, id string) (*repo.Message, error)
	RecentMessages(ctx context.Context, s repo.Scope, conversationID string, limit int) ([]repo.Message, error)
	Knowledge(ctx context.Context, workspaceID string) ([]repo.KnowledgeEntry, error)
	AIInstructions(ctx context.Context, workspaceID string) (string, error)
	conversation.Accounts
	AdminStore
}

// Replier sends a message as the AI or an agent through the send pipeline;
// send.Service is one.
type Replier interface {
	Reply(ctx context.Context, s repo.Scope, conversationID, text string, sender send.Sender) (*model.Message, error)
}

// Enqueuer asks the job queue to answer a conversation's pending messages;
// jobs.Client is one.
type Enqueuer interface {
	AIReplyDue(ctx context.Context, conversationID string) error
}

// Service is the service's own processing.
type Service struct {
	Store     Store
	Clock     clock.Clock
	Events    event.Recorder
	Sends     Replier
	Responder Responder
	// Jobs is nil where nothing runs tasks (some tests): Dispatch then
	// answers in place.
	Jobs Enqueuer
	// Timeout bounds one responder call (0: 30 s); past it the AI hands off.
	Timeout time.Duration
	// Typing passes an agent's typing to website visitors; nil where no
	// widget runs.
	Typing TypingPublisher
	// Visitors hears website visitors typing; nil where no widget runs.
	Visitors TypingFeed
}

// Answer answers every pending message of a conversation, oldest first. One
// worker at a time holds the conversation; another finding it held leaves,
// and the holder looks again after letting go, so nothing committed before
// that is left behind.
func (r *Service) Answer(ctx context.Context, conversationID string) error {
	for {
		ran, err := r.Store.WithLock(ctx, "ai:"+conversationID, func() error { return r.drain(ctx, conversationID) })
		if err != nil || !ran {
			return err
		}
		if _, err := r.Store.NextAIWork(ctx, conversationID); errors.Is(err, repo.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func (r *Service) drain(ctx context.Context, conversationID string) error {
	for {
		w, err := r.Store.NextAIWork(ctx, conversationID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		outcome, err := r.answerOne(ctx, w)
		if err != nil {
			return fmt.Errorf("ai: answer %s: %w", w.MessageID, err)
		}
		if err := r.Store.FinishAIWork(ctx, w.MessageID, outcome, r.Clock.Now()); err != nil {
			return err
		}
	}
}

// answerOne answers one message, or skips it when the conversation is no
// longer the AI's; the outcome says what happened.
func (r *Service) answerOne(ctx context.Context, w *repo.AIWork) (string, error) {
	s := repo.Scope{WorkspaceID: w.WorkspaceID, Livemode: w.Livemode}
	conv, err := r.Store.Conversation(ctx, s, w.ConversationID)
	if errors.Is(err, repo.ErrNotFound) {
		return "skipped: conversation gone", nil
	}
	if err != nil {
		return "", err
	}
	if skip, err := r.notOurs(ctx, conv); skip != "" || err != nil {
		return skip, err
	}
	in, err := r.input(ctx, s, conv, w.MessageID)
	if err != nil {
		return "", err
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	d, err := r.Responder.Respond(rctx, in)
	cancel()
	if err != nil {
		slog.Warn("ai: responder failed; handing off", "conversation_id", conv.ID, "err", err)
		d = Decision{HandOff: true, Reason: "responder error"}
	}
	if d.HandOff {
		return "handed off: " + d.Reason, r.HandOff(ctx, s, conv.ID)
	}
	// An agent may have taken over while the responder thought.
	if conv, err = r.Store.Conversation(ctx, s, conv.ID); err != nil {
		return "", err
	}
	if skip, err := r.notOurs(ctx, conv); skip != "" || err != nil {
		return skip, err
	}
	if _, err := r.Sends.Reply(ctx, s, conv.ID, d.Reply, send.Sender{Type: "ai"}); err != nil {
		if e, ok := apierr.As(err); ok {
			slog.Warn("ai: reply refused", "conversation_id", conv.ID, "code", e.Code, "err", e.Message)
			return "refused: " + string(e.Code), nil
		}
		return "", err
	}
	return "answered: " + d.Reason, nil
}

// notOurs says why the AI leaves a conversation alone ("" when it answers):
// closed, in another mode, or on an account whose processing is off.
func (r *Service) notOurs(ctx context.Context, conv *repo.Conversation) (string, error) {
	if conv.Status != "open" || conv.Mode != "ai" {
		return fmt.Sprintf("skipped: %s, mode %s", conv.Status, conv.Mode), nil
	}
	acc, err := r.Store.Account(ctx, conv.WorkspaceID, conv.Channel, conv.AccountID)
	if errors.Is(err, repo.ErrNotFound) {
		return "skipped: account gone", nil
	}
	if err != nil {
		return "", err
	}
	on, err := conversation.Processing(ctx, r.Store, acc)
	if err != nil || on {
		return "", err
	}
	return "skipped: processing off", nil
}

// input gathers what a responder needs for one message.
func (r *Service) input(ctx context.Context, s repo.Scope, conv *repo.Conversation, messageID string) (Input, error) {
	var in Input
	msg, err := r.Store.Message(ctx, s, messageID)
	if err != nil {
		return in, err
	}
	if msg.Text != nil {
		in.Message = *msg.Text
	}
	if in.Instructions, err = r.Store.AIInstructions(ctx, s.WorkspaceID); err != nil {
		return in, err
	}
	entries, err := r.Store.Knowledge(ctx, s.WorkspaceID)
	if err != nil {
		return in, err
	}
	for _, e := range entries {
		in.Knowledge = append(in.Knowledge, Doc{ID: e.ID, Question: e.Question, Answer: e.Answer})
	}
	recent, err := r.Store.RecentMessages(ctx, s, conv.ID, maxHistoryInPrompt)
	if err != nil {
		return in, err
	}
	for _, m := range recent {
		if m.CreatedAt.After(msg.CreatedAt) {
			break // later messages are answered in their turn
		}
		if m.Text != nil {
			in.History = append(in.History, Turn{Customer: m.Direction == "inbound", Text: *m.Text})
		}
	}
	return in, nil
}

// HandOff sends the hand-off line (as the AI), sets mode queued_for_human
// and routes the workspace's queue. A refused line does not stop the
// hand-off: a person is what the customer needs then.
func (r *Service) HandOff(ctx context.Context, s repo.Scope, conversationID string) error {
	if _, err := r.Sends.Reply(ctx, s, conversationID, HandOffLine, send.Sender{Type: "ai"}); err != nil {
		if _, ok := apierr.As(err); !ok {
			return err
		}
		slog.Warn("ai: hand-off line refused", "conversation_id", conversationID, "err", err)
	}
	err := r.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, s, conversationID)
		if err != nil {
			return err
		}
		if c.Status != "open" || c.Mode != "ai" {
			return nil // someone else decided meanwhile
		}
		c.Mode, c.UpdatedAt = "queued_for_human", r.Clock.Now()
		if err := q.UpdateConversation(ctx, s, c); err != nil {
			return err
		}
		out := view.Conversation(c)
		return r.Events.Record(ctx, q, s, event.ConversationUpdated, out, event.ConversationUpdate{Conversation: out, Changed: []string{"mode"}})
	})
	if err != nil {
		return err
	}
	r.Events.Committed(ctx)
	return r.Route(ctx, s.WorkspaceID)
}

// Dispatch is the periodic and after-commit pass: it asks for answers of
// every conversation with pending messages and routes every workspace with
// a conversation waiting for a person.
func (r *Service) Dispatch(ctx context.Context) error {
	ids, err := r.Store.ConversationsWithAIWork(ctx, 500)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if r.Jobs != nil {
			err = r.Jobs.AIReplyDue(ctx, id)
		} else {
			err = r.Answer(ctx, id)
		}
		if err != nil {
			return err
		}
	}
	workspaces, err := r.Store.WorkspacesWaiting(ctx)
	if err != nil {
		return err
	}
	for _, ws := range workspaces {
		if err := r.Route(ctx, ws); err != nil {
			return err
		}
	}
	return nil
}
