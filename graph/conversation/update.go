package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// cleanTags validates a tag list and drops repeats, keeping the order given.
func cleanTags(tags []string) ([]string, error) {
	if len(tags) > 50 {
		return nil, apierr.New(apierr.InvalidRequest, "A conversation takes at most 50 tags.")
	}
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || len(t) > 100 {
			return nil, apierr.New(apierr.InvalidRequest, "Each tag must be 1 to 100 characters.")
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Update applies a PATCH: status first, then mode, assignment and
// tags, and records conversation.updated with what changed.
func (s *Service) Update(ctx context.Context, id string, in model.UpdateConversationInput) (*model.Conversation, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if in.Status != nil && *in.Status != "open" && *in.Status != "closed" {
		return nil, apierr.New(apierr.InvalidRequest, "status must be open or closed.")
	}
	if in.Mode != nil && *in.Mode != "human" && *in.Mode != "ai" {
		return nil, apierr.New(apierr.InvalidRequest, "mode must be human or ai.")
	}
	var tags []string
	if in.Tags != nil {
		if tags, err = cleanTags(in.Tags); err != nil {
			return nil, err
		}
	}
	scope := a.Scope()
	var out *model.Conversation
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
		}
		var changed []string
		if in.Status != nil && *in.Status != c.Status {
			c.Status = *in.Status
			changed = append(changed, "status")
			if c.Status == "open" {
				mode, err := ReopenMode(ctx, q, c)
				if err != nil {
					return err
				}
				if mode != c.Mode {
					c.Mode = mode
					changed = append(changed, "mode")
				}
			}
		}
		if in.Mode != nil {
			if c.Status == "closed" {
				return apierr.New(apierr.ConversationClosed, "Conversation %s is closed; reopen it before changing its mode.", id)
			}
			mode := "ai"
			if *in.Mode == "human" {
				mode = "queued_for_human"
				if c.Mode == "human" {
					mode = "human" // an agent already has it
				}
			}
			if mode != c.Mode && !slices.Contains(changed, "mode") {
				changed = append(changed, "mode")
			}
			c.Mode = mode
		}
		if changed, err = assign(ctx, q, a.WorkspaceID, c, in, changed); err != nil {
			return err
		}
		if tags != nil && !slices.Equal(tags, c.Tags) {
			c.Tags = tags
			changed = append(changed, "tags")
		}
		out = view.Conversation(c)
		if len(changed) == 0 {
			return nil
		}
		c.UpdatedAt = s.Clock.Now()
		if err := q.UpdateConversation(ctx, scope, c); err != nil {
			return err
		}
		return s.Events.Record(ctx, q, scope, event.ConversationUpdated, out, event.ConversationUpdate{Conversation: out, Changed: changed})
	})
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return out, nil
}

// assign applies a PATCH's assigned_agent_id: an active agent of the
// workspace, or null to unassign.
func assign(ctx context.Context, q interface {
	Agent(ctx context.Context, workspaceID, id string) (*repo.Agent, error)
}, workspaceID string, c *repo.Conversation, in model.UpdateConversationInput, changed []string) ([]string, error) {
	agentID, set := in.AssignedAgentID.ValueOK()
	if !set {
		return changed, nil
	}
	if agentID != nil {
		agent, err := q.Agent(ctx, workspaceID, *agentID)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, fmt.Errorf("conversation: agent: %w", err)
		}
		if err != nil || !agent.Active {
			return nil, apierr.New(apierr.AgentNotFound, "%s is not an active agent of this workspace.", *agentID)
		}
	}
	if !view.EqualPtr(agentID, c.AssignedAgentID) {
		c.AssignedAgentID = agentID
		changed = append(changed, "assigned_agent_id")
	}
	return changed, nil
}
