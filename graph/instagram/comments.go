// Package instagram processes what Meta's webhooks say of an Instagram
// account: comments and live comments become
// "comment" messages, one conversation per commenter and media; DMs become
// messages of the customer's direct conversation (dm.go: attachments,
// echoes, unsent messages), each stored once per Meta id. The provider side
// (the payload, the requests) is channels/meta and channels/instagram.
package instagram

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Receiver stores inbound messages; *inbound.Service is one.
type Receiver interface {
	Receive(ctx context.Context, s repo.Scope, acc *repo.Account, m inbound.Message) (*model.InboundResult, error)
}

// Service processes Instagram webhook events of one account at a time.
type Service struct {
	Inbound Receiver
	// Store finds the messages a mid names; Events records what changes
	// them (unsent DMs).
	Store  Store
	Events event.Recorder
	// Media downloads DM attachments; nil keeps a note instead.
	Media Downloader
}

// errKnown ends a transaction that would store something Meta already
// told us (a retried webhook): nothing is written.
var errKnown = errors.New("instagram: already received")

// Comment stores a comment (or live comment) as a "comment" message in the
// conversation of its commenter and media, starting it with the first one.
// A comment received before, and the account's own comments (its public
// replies come back as comment webhooks), change nothing; result is nil then.
func (s *Service) Comment(ctx context.Context, scope repo.Scope, acc *repo.Account, c *meta.InstagramComment) (*model.InboundResult, error) {
	if c.ID == "" || c.FromID == "" || c.MediaID == "" {
		return nil, fmt.Errorf("instagram: comment without id, author or media: %q by %q on %q", c.ID, c.FromID, c.MediaID)
	}
	if c.FromID == c.AccountID {
		return nil, nil
	}
	field := c.Field
	if field != "live_comments" {
		field = "comments"
	}
	text := c.Text
	thread := func(ctx context.Context, q repo.Queries, _ *repo.Contact) (*repo.Conversation, error) {
		known, err := q.InstagramCommentKnown(ctx, scope, acc.ID, c.ID)
		if err != nil {
			return nil, err
		}
		if known {
			return nil, errKnown
		}
		id, err := q.CommentThread(ctx, scope, acc.ID, c.FromID, c.MediaID)
		if err != nil {
			return nil, err
		}
		return q.LockConversation(ctx, scope, id)
	}
	stored := func(ctx context.Context, q repo.Queries, msg *repo.Message) error {
		rec := &repo.InstagramComment{MessageID: msg.ID, WorkspaceID: scope.WorkspaceID, Livemode: scope.Livemode, AccountID: acc.ID,
			ConversationID: msg.ConversationID, CommentID: c.ID, MediaID: c.MediaID, FromID: c.FromID, Field: field,
			CreatedAt: writtenAt(c, msg.CreatedAt)}
		if c.ParentID != "" {
			rec.ParentID = &c.ParentID
		}
		return q.InsertInstagramComment(ctx, rec)
	}
	out, err := s.Inbound.Receive(ctx, scope, acc, inbound.Message{Channel: "instagram", From: c.FromID,
		Name: strings.TrimSpace(c.FromUsername), Type: "comment", Text: &text, At: c.Time, Comment: true,
		Thread: thread, Stored: stored, Rich: model.Rich{ProviderMessageID: &c.ID, Comment: &model.Comment{ID: c.ID,
			MediaID: c.MediaID, ParentID: c.ParentID, AdID: c.AdID, AdTitle: c.AdTitle}}})
	if errors.Is(err, errKnown) {
		return nil, nil
	}
	return out, err
}

// writtenAt is when a comment was written: the webhook's time, unless it
// has none or one after the comment was received.
func writtenAt(c *meta.InstagramComment, received time.Time) time.Time {
	if c.Time.IsZero() || c.Time.After(received) {
		return received
	}
	return c.Time
}
