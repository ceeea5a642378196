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

	seq lastSeq
}

// Answer answers every pending message of a conversation, oldest first. One
// worker at a time holds the conversation; another finding it held leaves,
// and the holder looks again after letting go, so nothing committed before
// that is left behind.
func (s *Service) Answer(ctx context.Context, conversationID string) error {
	for {
		ran, err := s.Store.WithLock(ctx, "ai:"+conversationID, func() error { return s.drain(ctx, conversationID) })
		if err != nil || !ran {
			return err
		}
		if _, err := s.Store.NextAIWork(ctx, conversationID); errors.Is(err, repo.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func (s *Service) drain(ctx context.Context, conversationID string) error {
	for {
		w, err := s.Store.NextAIWork(ctx, conversationID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		outcome, err := s.answerOne(ctx, w)
		if err != nil {
			return fmt.Errorf("ai: answer %s: %w", w.MessageID, err)
		}
		if err := s.Store.FinishAIWork(ctx, w.MessageID, outcome, s.Clock.Now()); err != nil {
			return err
		}
	}
}

// answerOne answers one message, or skips it when the conversation is no
// longer the AI's; the outcome says what happened.
func (s *Service) answerOne(ctx context.Context, w *repo.AIWork) (string, error) {
	scope := repo.Scope{WorkspaceID: w.WorkspaceID, Livemode: w.Livemode}
	conv, err := s.Store.Conversation(ctx, scope, w.ConversationID)
	if errors.Is(err, repo.ErrNotFound) {
		return "skipped: conversation gone", nil
	}
	if err != nil {
		return "", err
	}
	if skip, err := s.notOurs(ctx, conv); skip != "" || err != nil {
		return skip, err
	}
	in, err := s.input(ctx, scope, conv, w.MessageID)
	if err != nil {
		return "", err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	d, err := s.Responder.Respond(rctx, in)
	cancel()
	if err != nil {
		slog.Warn("ai: responder failed; handing off", "conversation_id", conv.ID, "err", err)
		d = Decision{HandOff: true, Reason: "responder error"}
	}
	if d.HandOff {
		return "handed off: " + d.Reason, s.HandOff(ctx, scope, conv.ID)
	}
	// An agent may have taken over while the responder thought.
	if conv, err = s.Store.Conversation(ctx, scope, conv.ID); err != nil {
		return "", err
	}
	if skip, err := s.notOurs(ctx, conv); skip != "" || err != nil {
		return skip, err
	}
	if _, err := s.Sends.Reply(ctx, scope, conv.ID, d.Reply, send.Sender{Type: "ai"}); err != nil {
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
func (s *Service) notOurs(ctx context.Context, conv *repo.Conversation) (string, error) {
	if conv.Status != "open" || conv.Mode != "ai" {
		return fmt.Sprintf("skipped: %s, mode %s", conv.Status, conv.Mode), nil
	}
	acc, err := s.Store.Account(ctx, conv.WorkspaceID, conv.Channel, conv.AccountID)
	if errors.Is(err, repo.ErrNotFound) {
		return "skipped: account gone", nil
	}
	if err != nil {
		return "", err
	}
	on, err := conversation.Processing(ctx, s.Store, acc)
	if err != nil || on {
		return "", err
	}
	return "skipped: processing off", nil
}

// input gathers what a responder needs for one message.
func (s *Service) input(ctx context.Context, scope repo.Scope, conv *repo.Conversation, messageID string) (Input, error) {
	var in Input
	msg, err := s.Store.Message(ctx, scope, messageID)
	if err != nil {
		return in, err
	}
	if msg.Text != nil {
		in.Message = *msg.Text
	}
	if in.Instructions, err = s.Store.AIInstructions(ctx, scope.WorkspaceID); err != nil {
		return in, err
	}
	entries, err := s.Store.Knowledge(ctx, scope.WorkspaceID)
	if err != nil {
		return in, err
	}
	for _, e := range entries {
		in.Knowledge = append(in.Knowledge, Doc{ID: e.ID, Question: e.Question, Answer: e.Answer})
	}
	recent, err := s.Store.RecentMessages(ctx, scope, conv.ID, maxHistoryInPrompt)
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
func (s *Service) HandOff(ctx context.Context, scope repo.Scope, conversationID string) error {
	if _, err := s.Sends.Reply(ctx, scope, conversationID, HandOffLine, send.Sender{Type: "ai"}); err != nil {
		if _, ok := apierr.As(err); !ok {
			return err
		}
		slog.Warn("ai: hand-off line refused", "conversation_id", conversationID, "err", err)
	}
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, scope, conversationID)
		if err != nil {
			return err
		}
		if c.Status != "open" || c.Mode != "ai" {
			return nil // someone else decided meanwhile
		}
		c.Mode, c.UpdatedAt = "queued_for_human", s.Clock.Now()
		if err := q.UpdateConversation(ctx, scope, c); err != nil {
			return err
		}
		out := view.Conversation(c)
		return s.Events.Record(ctx, q, scope, event.ConversationUpdated, out, event.ConversationUpdate{Conversation: out, Changed: []string{"mode"}})
	})
	if err != nil {
		return err
	}
	s.Events.Committed(ctx)
	return s.Route(ctx, scope.WorkspaceID)
}

// Dispatch is the periodic and after-commit pass: it asks for answers of
// every conversation with pending messages and routes every workspace with
// a conversation waiting for a person.
func (s *Service) Dispatch(ctx context.Context) error {
	ids, err := s.Store.ConversationsWithAIWork(ctx, 500)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if s.Jobs != nil {
			err = s.Jobs.AIReplyDue(ctx, id)
		} else {
			err = s.Answer(ctx, id)
		}
		if err != nil {
			return err
		}
	}
	workspaces, err := s.Store.WorkspacesWaiting(ctx)
	if err != nil {
		return err
	}
	for _, ws := range workspaces {
		if err := s.Route(ctx, ws); err != nil {
			return err
		}
	}
	return nil
}
