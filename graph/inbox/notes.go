package inbox

import (
	"context"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// NoteStore keeps private notes; repo.Store is one. Notes are a table of
// their own, so no message list, event or webhook can carry one.
type NoteStore interface {
	InsertNote(ctx context.Context, s repo.Scope, n *repo.Note) error
	Notes(ctx context.Context, s repo.Scope, conversationID string, p repo.Page) ([]repo.Note, error)
}

// maxNoteChars bounds a note.
const maxNoteChars = 10000

func noteView(n *repo.Note) *model.Note {
	return &model.Note{ID: n.ID, ConversationID: n.ConversationID, Text: n.Text,
		Author: &model.NoteAuthor{ID: n.AuthorMemberID, Name: n.AuthorName}, CreatedAt: model.NewTimestamp(n.CreatedAt)}
}

// AddNote is addNote: a member's private note, shown live to the other
// members (conversationNotes) and to nobody else.
func (s *Service) AddNote(ctx context.Context, conversationID, text string, memberID *string) (*model.Note, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, apierr.New(apierr.TextRequired, "A note needs text.")
	}
	if len([]rune(text)) > maxNoteChars {
		return nil, apierr.New(apierr.InvalidRequest, "A note is at most %d characters.", maxNoteChars)
	}
	a, m, err := s.Acting(ctx, memberID)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	n := &repo.Note{ID: repo.NewID("note_", now), ConversationID: conversationID, AuthorMemberID: m.ID,
		AuthorName: m.Name, Text: text, CreatedAt: now}
	if err := s.Notes.InsertNote(ctx, a.Scope(), n); err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	out := noteView(n)
	s.publish(ctx, signal{Kind: kindNote, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		ConversationID: conversationID, Note: out})
	return out, nil
}

// NoteList is notes: a conversation's notes, oldest first, to merge into its
// thread by createdAt.
func (s *Service) NoteList(ctx context.Context, conversationID string, limit *int, after *string) (*model.NotePage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	list := "notes:" + conversationID
	p, err := s.Cursors.Page(list, limit, after)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.Conversation(ctx, a.Scope(), conversationID); err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	rows, err := s.Notes.Notes(ctx, a.Scope(), conversationID, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, list, rows, p, func(n repo.Note) repo.Position { return repo.Position{At: n.CreatedAt, ID: n.ID} })
	items := make([]*model.Note, 0, len(rows))
	for i := range rows {
		items = append(items, noteView(&rows[i]))
	}
	return &model.NotePage{Items: items, HasMore: more, NextCursor: next}, nil
}
