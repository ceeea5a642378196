// Package inbox is the agent inbox's own rules (app.md 2): its views and
// unread counts, each member's read marks, private notes, and presence.
// Its actions on a conversation are the existing operations (graph/ai,
// graph/conversation); what the reply box shows is graph/send's ReplyRules.
package inbox

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what the inbox reads and writes; repo.Store is one.
type Store interface {
	Conversation(ctx context.Context, s repo.Scope, id string) (*repo.Conversation, error)
	InboxConversations(ctx context.Context, s repo.Scope, f repo.InboxFilter, p repo.Page) ([]repo.InboxRow, error)
	InboxUnread(ctx context.Context, s repo.Scope, memberID string) (*repo.InboxUnread, error)
	UnreadAmong(ctx context.Context, memberID string, ids []string) (map[string]bool, error)
	MarkRead(ctx context.Context, s repo.Scope, memberID, conversationID string, at time.Time) error
}

// Members looks a member up within a workspace: her name, or
// repo.ErrNotFound when she is not an active member of it.
type Members interface {
	MemberName(ctx context.Context, workspaceID, id string) (string, error)
}

// AgentTyping tells a website visitor that an agent is typing;
// ai.Service is one.
type AgentTyping interface {
	AgentTyping(ctx context.Context, conversationID, agentID string) (bool, error)
}

// Service is the inbox.
type Service struct {
	Store   Store
	Notes   NoteStore
	Members Members
	Clock   clock.Clock
	Cursors cursor.Signer
	// Bus carries presence and notes to every serve process; nil keeps
	// them in this one.
	Bus Bus
	// Typing passes a member's typing to the website visitor; nil passes
	// nothing.
	Typing AgentTyping

	hub hub
}

// Member is the person an inbox operation acts as.
type Member struct {
	ID, Name string
}

// Acting is the member the caller acts as: the signed-in member (memberID
// may only repeat her own id), or for the admin token the member it names.
func (s *Service) Acting(ctx context.Context, memberID *string) (*auth.Actor, *Member, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, nil, err
	}
	id := a.MemberID
	switch {
	case id != "" && memberID != nil && *memberID != id:
		return nil, nil, apierr.New(apierr.InvalidRequest, "memberId names another member; a signed-in member acts as herself.")
	case id == "" && memberID == nil:
		return nil, nil, apierr.New(apierr.InvalidRequest, "The admin token is no member: name the member to act as with memberId.")
	case id == "":
		id = *memberID
	}
	name, err := s.Members.MemberName(ctx, a.WorkspaceID, id)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil, apierr.New(apierr.AgentNotFound, "%s is not an active member of this workspace.", id)
	}
	if err != nil {
		return nil, nil, err
	}
	return a, &Member{ID: id, Name: name}, nil
}

// author is a member as notes and presence show her.
func (m *Member) author() *model.NoteAuthor { return &model.NoteAuthor{ID: m.ID, Name: m.Name} }

// AgentMembers looks members up among the workspace's agents (the members
// whose id a conversation's assigned_agent_id takes).
type AgentMembers struct {
	Store interface {
		Agent(ctx context.Context, workspaceID, id string) (*repo.Agent, error)
	}
}

// MemberName is an active agent's name.
func (m AgentMembers) MemberName(ctx context.Context, workspaceID, id string) (string, error) {
	ag, err := m.Store.Agent(ctx, workspaceID, id)
	if err != nil {
		return "", err
	}
	if !ag.Active {
		return "", repo.ErrNotFound
	}
	return ag.Name, nil
}
