package inbox

import (
	"context"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// List is the inbox query: a page of a view, each conversation with
// whether it is unread for the member. The admin token without memberId
// reads every view but Mine, and nothing is unread for it.
func (s *Service) List(ctx context.Context, v model.InboxView, channel, tag, assigneeID, after *string, limit *int, memberID *string) (*model.InboxPage, error) {
	f := repo.InboxFilter{View: string(v), Channel: channel, AssigneeID: assigneeID}
	if !repo.ValidView(f.View) {
		return nil, apierr.New(apierr.InvalidRequest, "view must be WAITING, MINE, AI, EXTERNAL, CLOSED or ALL.")
	}
	if c := channel; c != nil && !channels.Valid(*c) {
		return nil, apierr.New(apierr.InvalidRequest, "channel must be one of website, whatsapp, instagram, email.")
	}
	if t := tag; t != nil {
		tag := strings.TrimSpace(*t)
		if tag == "" || len(tag) > 100 {
			return nil, apierr.New(apierr.InvalidRequest, "tag must be 1 to 100 characters.")
		}
		f.Tag = &tag
	}
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var m *Member
	if a.MemberID != "" || memberID != nil || f.View == repo.ViewMine {
		if _, m, err = s.Acting(ctx, memberID); err != nil {
			return nil, err
		}
		f.MemberID = m.ID
	}
	list := "inbox:" + f.View + ":" + f.MemberID
	p, err := s.Cursors.Page(list, limit, after)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.InboxConversations(ctx, a.Scope(), f, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, list, rows, p, func(r repo.InboxRow) repo.Position { return repo.InboxPosition(f.View, r) })
	unread := map[string]bool{}
	if m != nil && len(rows) > 0 {
		ids := make([]string, len(rows))
		for i := range rows {
			ids[i] = rows[i].ID
		}
		if unread, err = s.Store.UnreadAmong(ctx, m.ID, ids); err != nil {
			return nil, err
		}
	}
	page := &model.InboxPage{Items: make([]*model.InboxItem, 0, len(rows)), HasMore: more, NextCursor: next}
	for i := range rows {
		page.Items = append(page.Items, &model.InboxItem{Conversation: view.Conversation(&rows[i].Conversation),
			Unread: unread[rows[i].ID], QueuedAt: model.TimestampPtr(rows[i].QueuedAt)})
	}
	return page, nil
}

// Counts is inboxCounts: the member's unread open conversations per view.
func (s *Service) Counts(ctx context.Context, memberID *string) (*model.InboxCounts, error) {
	a, m, err := s.Acting(ctx, memberID)
	if err != nil {
		return nil, err
	}
	n, err := s.Store.InboxUnread(ctx, a.Scope(), m.ID)
	if err != nil {
		return nil, err
	}
	return &model.InboxCounts{Waiting: n.Waiting, Mine: n.Mine, Ai: n.AI, External: n.External, All: n.All}, nil
}

// MarkRead is markConversationRead: read up to the customer's last
// message; a later one makes the conversation unread again.
func (s *Service) MarkRead(ctx context.Context, id string, memberID *string) (*model.InboxItem, error) {
	a, m, err := s.Acting(ctx, memberID)
	if err != nil {
		return nil, err
	}
	if err := s.Store.MarkRead(ctx, a.Scope(), m.ID, id, s.Clock.Now()); err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
	}
	c, err := s.Store.Conversation(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
	}
	// Read up to the last_inbound_at just stored: a customer message that
	// came between the two reads is the next unread one.
	unread, err := s.Store.UnreadAmong(ctx, m.ID, []string{id})
	if err != nil {
		return nil, err
	}
	return &model.InboxItem{Conversation: view.Conversation(c), Unread: unread[id]}, nil
}
