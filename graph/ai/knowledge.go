package ai

import (
	"context"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Bounds of what the workspace stores for the AI.
const (
	maxQuestionChars     = 1000
	maxAnswerChars       = 4000
	maxInstructionsStore = 20000
	maxKnowledgeEntries  = 1000
)

// KnowledgeEntries lists the workspace's entries, oldest first.
func (s *Service) KnowledgeEntries(ctx context.Context) ([]*model.KnowledgeEntry, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.Knowledge(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return view.Map(rows, knowledgeView), nil
}

func knowledgeView(e *repo.KnowledgeEntry) *model.KnowledgeEntry {
	return &model.KnowledgeEntry{ID: e.ID, Question: e.Question, Answer: e.Answer,
		CreatedAt: model.NewTimestamp(e.CreatedAt), UpdatedAt: model.NewTimestamp(e.UpdatedAt)}
}

func checkEntry(in model.KnowledgeEntryInput) (question, answer string, err error) {
	question, answer = strings.TrimSpace(in.Question), strings.TrimSpace(in.Answer)
	switch {
	case question == "" || answer == "":
		return "", "", apierr.New(apierr.InvalidRequest, "A knowledge entry needs a question and an answer.")
	case len([]rune(question)) > maxQuestionChars:
		return "", "", apierr.New(apierr.InvalidRequest, "question is at most %d characters.", maxQuestionChars)
	case len([]rune(answer)) > maxAnswerChars:
		return "", "", apierr.New(apierr.InvalidRequest, "answer is at most %d characters.", maxAnswerChars)
	}
	return question, answer, nil
}

// CreateKnowledgeEntry adds an entry (at most 1,000 per workspace).
func (s *Service) CreateKnowledgeEntry(ctx context.Context, in model.KnowledgeEntryInput) (*model.KnowledgeEntry, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	question, answer, err := checkEntry(in)
	if err != nil {
		return nil, err
	}
	existing, err := s.Store.Knowledge(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(existing) >= maxKnowledgeEntries {
		return nil, apierr.New(apierr.InvalidRequest, "A workspace keeps at most %d knowledge entries.", maxKnowledgeEntries)
	}
	now := s.Clock.Now()
	e := &repo.KnowledgeEntry{ID: repo.NewID("kb_", now), WorkspaceID: a.WorkspaceID, Question: question,
		Answer: answer, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.UpsertKnowledgeEntry(ctx, e); err != nil {
		return nil, err
	}
	return knowledgeView(e), nil
}

// UpdateKnowledgeEntry replaces an entry's question and answer.
func (s *Service) UpdateKnowledgeEntry(ctx context.Context, id string, in model.KnowledgeEntryInput) (*model.KnowledgeEntry, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	question, answer, err := checkEntry(in)
	if err != nil {
		return nil, err
	}
	e, err := s.Store.KnowledgeEntry(ctx, a.WorkspaceID, id)
	if err != nil {
		return nil, view.NotFound(err, apierr.KnowledgeEntryNotFound, "knowledge entry", id)
	}
	e.Question, e.Answer, e.UpdatedAt = question, answer, s.Clock.Now()
	if err := s.Store.UpsertKnowledgeEntry(ctx, e); err != nil {
		return nil, err
	}
	return knowledgeView(e), nil
}

// DeleteKnowledgeEntry deletes an entry.
func (s *Service) DeleteKnowledgeEntry(ctx context.Context, id string) (*model.Deleted, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Store.DeleteKnowledgeEntry(ctx, a.WorkspaceID, id); err != nil {
		return nil, view.NotFound(err, apierr.KnowledgeEntryNotFound, "knowledge entry", id)
	}
	return &model.Deleted{ID: id, Object: "knowledge_entry", Deleted: true}, nil
}

// Instructions returns the workspace's instructions for the LLM.
func (s *Service) Instructions(ctx context.Context) (string, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return "", err
	}
	return s.Store.AIInstructions(ctx, a.WorkspaceID)
}

// SetInstructions stores the workspace's instructions for the LLM.
func (s *Service) SetInstructions(ctx context.Context, text string) (string, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return "", err
	}
	if len([]rune(text)) > maxInstructionsStore {
		return "", apierr.New(apierr.InvalidRequest, "instructions are at most %d characters.", maxInstructionsStore)
	}
	if err := s.Store.SetAIInstructions(ctx, a.WorkspaceID, text); err != nil {
		return "", err
	}
	return text, nil
}
