package ai

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// AdminStore is what the agents' operations read and write beyond the
// AI's work; repo.Store is one.
type AdminStore interface {
	HumanQueue(ctx context.Context, s repo.Scope, limit int) ([]repo.Conversation, error)
	AgentLoads(ctx context.Context, workspaceID string) ([]repo.AgentLoad, error)
	Agent(ctx context.Context, workspaceID, id string) (*repo.Agent, error)
	SetAgentActive(ctx context.Context, workspaceID, id string, active bool) error
	KnowledgeEntry(ctx context.Context, workspaceID, id string) (*repo.KnowledgeEntry, error)
	UpsertKnowledgeEntry(ctx context.Context, e *repo.KnowledgeEntry) error
	DeleteKnowledgeEntry(ctx context.Context, workspaceID, id string) error
	SetAIInstructions(ctx context.Context, workspaceID, instructions string) error
	LastEventSeq(ctx context.Context) (int64, error)
	ConversationEventsAfter(ctx context.Context, workspaceID string, livemode bool, conversationID string, after int64, limit int) ([]repo.Event, error)
}

// maxReplyChars bounds an agent's reply; channels bound it further.
const maxReplyChars = 10000

// Queue lists the caller's conversations waiting for a person, longest
// waiting first (limit 1-100, default 50).
func (s *Service) Queue(ctx context.Context, limit *int) ([]*model.Conversation, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	n := 50
	if limit != nil {
		if *limit < 1 || *limit > 100 {
			return nil, apierr.New(apierr.InvalidRequest, "limit must be between 1 and 100.")
		}
		n = *limit
	}
	rows, err := s.Store.HumanQueue(ctx, a.Scope(), n)
	if err != nil {
		return nil, err
	}
	return view.Map(rows, view.Conversation), nil
}

// Agents lists the workspace's agents with their load.
func (s *Service) Agents(ctx context.Context) ([]*model.Agent, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	loads, err := s.Store.AgentLoads(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Agent, 0, len(loads))
	for _, l := range loads {
		out = append(out, agentView(l))
	}
	return out, nil
}

func agentView(l repo.AgentLoad) *model.Agent {
	return &model.Agent{ID: l.ID, Name: l.Name, Email: l.Email, Active: l.Active, MaxOpen: l.MaxOpen, OpenConversations: l.Open}
}

// SetAgentActive switches an agent on or off; one made active takes
// waiting conversations at once.
func (s *Service) SetAgentActive(ctx context.Context, id string, active bool) (*model.Agent, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Store.SetAgentActive(ctx, a.WorkspaceID, id, active); err != nil {
		return nil, view.NotFound(err, apierr.AgentNotFound, "agent", id)
	}
	if active {
		if err := s.Route(ctx, a.WorkspaceID); err != nil {
			return nil, err
		}
	}
	loads, err := s.Store.AgentLoads(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(loads, func(l repo.AgentLoad) bool { return l.ID == id })
	if i < 0 {
		return nil, apierr.New(apierr.AgentNotFound, "%s is not an agent of this workspace.", id)
	}
	return agentView(loads[i]), nil
}

// AgentReply sends an agent's reply: the conversation becomes hers (mode
// human, assigned to her when nobody has it) before the message goes
// through the send pipeline with sender agent.
func (s *Service) AgentReply(ctx context.Context, conversationID, agentID, text string) (*model.Message, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.CheckSelf(agentID); err != nil {
		return nil, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, apierr.New(apierr.TextRequired, "An agent's reply needs text.")
	}
	if len([]rune(text)) > maxReplyChars {
		return nil, apierr.New(apierr.InvalidRequest, "An agent's reply is at most %d characters.", maxReplyChars)
	}
	agent, err := s.activeAgent(ctx, a.WorkspaceID, agentID)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	if _, err := s.takeOver(ctx, scope, conversationID, agentID, false); err != nil {
		return nil, err
	}
	return s.Sends.Reply(ctx, scope, conversationID, text, send.Sender{Type: "agent", Name: &agent.Name})
}

// TypingNotice is an agent typing on a website chat, for the widgets of
// its visitor.
type TypingNotice = model.TypingNotice

// TypingPublisher passes a typing notice to the widgets of its visitor in
// every serve process; widget.Publish is one.
type TypingPublisher interface {
	AgentTyping(ctx context.Context, n TypingNotice) error
}

// AgentTyping tells the visitor of an open live website chat that an
// active agent is typing; it reports whether a notice went
// out: a sandbox chat has no widget to tell.
func (s *Service) AgentTyping(ctx context.Context, conversationID, agentID string) (bool, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return false, err
	}
	if err := a.CheckSelf(agentID); err != nil {
		return false, err
	}
	if _, err := s.activeAgent(ctx, a.WorkspaceID, agentID); err != nil {
		return false, err
	}
	c, err := s.Store.Conversation(ctx, a.Scope(), conversationID)
	if err != nil {
		return false, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	if c.Channel != "website" {
		return false, apierr.New(apierr.InvalidRequest, "Typing is shown on website chats only; %s is a %s conversation.", conversationID, c.Channel)
	}
	if c.Status != "open" {
		return false, apierr.New(apierr.ConversationClosed, "Website chat %s is closed.", conversationID)
	}
	if !a.Livemode || s.Typing == nil || c.ContactID == nil {
		return false, nil
	}
	err = s.Typing.AgentTyping(ctx, TypingNotice{WorkspaceID: c.WorkspaceID, ConversationID: c.ID,
		ContactID: *c.ContactID, WebsiteID: c.WebsiteID})
	return err == nil, err
}

// activeAgent is an active agent of the workspace, or agent_not_found.
func (s *Service) activeAgent(ctx context.Context, workspaceID, id string) (*repo.Agent, error) {
	agent, err := s.Store.Agent(ctx, workspaceID, id)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return nil, err
	}
	if err != nil || !agent.Active {
		return nil, apierr.New(apierr.AgentNotFound, "%s is not an active agent of this workspace.", id)
	}
	return agent, nil
}

// TakeOver is takeOver: the conversation becomes the agent's (mode
// human, assigned to her, whoever had it), as agentReply makes it before
// it sends.
func (s *Service) TakeOver(ctx context.Context, id, agentID string) (*model.Conversation, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.activeAgent(ctx, a.WorkspaceID, agentID); err != nil {
		return nil, err
	}
	return s.takeOver(ctx, a.Scope(), id, agentID, true)
}

// takeOver sets mode human and assigns the conversation to the agent
// (reassign), or only when nobody has it, recording conversation.updated
// with what changed.
func (s *Service) takeOver(ctx context.Context, scope repo.Scope, id, agentID string, reassign bool) (*model.Conversation, error) {
	var out *model.Conversation
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
		}
		if c.Status != "open" && c.Channel == "website" {
			return apierr.New(apierr.ConversationClosed, "Website chat %s is closed; it accepts messages only while open.", id)
		}
		var changed []string
		if c.Mode != "human" {
			c.Mode = "human"
			changed = append(changed, "mode")
		}
		if c.AssignedAgentID == nil || reassign && *c.AssignedAgentID != agentID {
			c.AssignedAgentID = &agentID
			changed = append(changed, "assigned_agent_id")
		}
		out = view.Conversation(c)
		if len(changed) == 0 {
			return nil
		}
		c.UpdatedAt = s.Clock.Now()
		if err := q.UpdateConversation(ctx, scope, c); err != nil {
			return err
		}
		out = view.Conversation(c)
		return s.Events.Record(ctx, q, scope, event.ConversationUpdated, out, event.ConversationUpdate{Conversation: out, Changed: changed})
	})
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return out, nil
}

// SetIntegrationReplies pauses (false) or resumes (true) API sends on a
// conversation; while paused they answer 409 integration_paused.
func (s *Service) SetIntegrationReplies(ctx context.Context, id string, on bool) (*model.Conversation, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	var out *model.Conversation
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
		}
		if c.IntegrationReplies == on {
			out = view.Conversation(c)
			return nil
		}
		c.IntegrationReplies, c.UpdatedAt = on, s.Clock.Now()
		if err := q.UpdateConversation(ctx, scope, c); err != nil {
			return err
		}
		out = view.Conversation(c)
		return s.Events.Record(ctx, q, scope, event.ConversationUpdated, out,
			event.ConversationUpdate{Conversation: out, Changed: []string{"integration_replies"}})
	})
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return out, nil
}
