package ai

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// routeBatch is how many waiting conversations one routing pass assigns at
// most; the next pass takes the rest.
const routeBatch = 200

// Route assigns the workspace's waiting conversations (queued_for_human,
// assigned to nobody), longest waiting first, each to the active agent with
// the fewest open assigned conversations below her max_open (both modes
// counted together); with nobody free they wait. Passes of one
// workspace run one at a time (a transaction-scoped lock), so no agent goes
// over max_open and no conversation is assigned twice, however many run.
func (s *Service) Route(ctx context.Context, workspaceID string) error {
	assigned := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		assigned = false
		if err := q.LockRouting(ctx, workspaceID); err != nil {
			return err
		}
		loads, err := q.AgentLoads(ctx, workspaceID)
		if err != nil {
			return err
		}
		waiting, err := q.WaitingConversations(ctx, workspaceID, routeBatch)
		if err != nil {
			return err
		}
		for _, w := range waiting {
			agent := pickAgent(loads)
			if agent == nil {
				return nil
			}
			ok, err := s.assign(ctx, q, w, agent.ID)
			if err != nil {
				return err
			}
			if ok {
				agent.Open++
				assigned = true
			}
		}
		return nil
	})
	if err == nil && assigned {
		s.Events.Committed(ctx)
	}
	return err
}

// pickAgent is the active agent with the fewest open conversations below
// her max_open (the first by id on a tie), or nil.
func pickAgent(loads []repo.AgentLoad) *repo.AgentLoad {
	var best *repo.AgentLoad
	for i := range loads {
		a := &loads[i]
		if !a.Active || a.Open >= a.MaxOpen {
			continue
		}
		if best == nil || a.Open < best.Open {
			best = a
		}
	}
	return best
}

// assign gives a waiting conversation to an agent and records
// conversation.updated; ok is false when it stopped waiting meanwhile.
func (s *Service) assign(ctx context.Context, q repo.Queries, w repo.Scoped, agentID string) (ok bool, err error) {
	scope := repo.Scope{WorkspaceID: w.WorkspaceID, Livemode: w.Livemode}
	c, err := q.LockConversation(ctx, scope, w.ID)
	if err != nil {
		return false, err
	}
	if c.Status != "open" || c.Mode != "queued_for_human" || c.AssignedAgentID != nil {
		return false, nil
	}
	c.AssignedAgentID, c.UpdatedAt = &agentID, s.Clock.Now()
	if err := q.UpdateConversation(ctx, scope, c); err != nil {
		return false, err
	}
	out := view.Conversation(c)
	return true, s.Events.Record(ctx, q, scope, event.ConversationUpdated, out,
		event.ConversationUpdate{Conversation: out, Changed: []string{"assigned_agent_id"}})
}
