package seed

import (
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/repo"
)

// processing writes what the service's own processing needs: agents'
// max_open, the knowledge entries and the AI instructions.
func (s *workspaceSeed) processing() error {
	for i, ag := range s.w.Agents {
		if ag.MaxOpen == nil {
			continue
		}
		p := fmt.Sprintf(".agents[%d].max_open", i)
		if *ag.MaxOpen < 0 {
			return s.bad(p, "must be 0 or more")
		}
		if err := s.q.SetAgentMaxOpen(s.ctx, s.w.ID, ag.ID, *ag.MaxOpen); err != nil {
			return s.wrap(p, err)
		}
	}
	seen := map[string]bool{}
	for i, k := range s.w.Knowledge {
		p := fmt.Sprintf(".knowledge[%d]", i)
		switch {
		case !strings.HasPrefix(k.ID, "kb_"):
			return s.bad(p+".id", "must start with kb_")
		case seen[k.ID]:
			return s.bad(p+".id", "is used twice")
		case strings.TrimSpace(k.Question) == "":
			return s.bad(p+".question", "is required")
		case strings.TrimSpace(k.Answer) == "":
			return s.bad(p+".answer", "is required")
		}
		seen[k.ID] = true
		e := &repo.KnowledgeEntry{ID: k.ID, WorkspaceID: s.w.ID, Question: k.Question, Answer: k.Answer,
			CreatedAt: s.now, UpdatedAt: s.now}
		if err := s.q.UpsertKnowledgeEntry(s.ctx, e); err != nil {
			return s.wrap(p+".id", err)
		}
	}
	if s.w.AI != nil && s.w.AI.Instructions != nil {
		return s.wrap(".ai.instructions", s.q.SetAIInstructions(s.ctx, s.w.ID, *s.w.AI.Instructions))
	}
	return nil
}
