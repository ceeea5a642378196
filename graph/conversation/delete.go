package conversation

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Deleted is the data of conversation.deleted: ids only.
type Deleted struct {
	ID         string   `json:"id"`
	Object     string   `json:"object"`
	Deleted    bool     `json:"deleted"`
	ContactID  *string  `json:"contact_id"`
	MessageIDs []string `json:"message_ids"`
}

// Delete deletes a conversation of the caller's workspace and mode, for
// owners, admins and the admin token: its messages, their files, its
// events and webhook deliveries and its request log rows, in one
// transaction that records conversation.deleted (service-api.md, Delivery
// rules 9).
func (s *Service) Delete(ctx context.Context, id string) (*model.Deleted, error) {
	a, err := auth.ForField(ctx, "deleteConversation")
	if err != nil {
		return nil, err
	}
	scope := repo.Scope{WorkspaceID: a.WorkspaceID, Livemode: a.Livemode}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.LockConversation(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ConversationNotFound, "conversation", id)
		}
		messages, err := q.DeleteConversation(ctx, c, s.Clock.Now())
		if err != nil {
			return err
		}
		conv := &model.Conversation{ID: c.ID, Channel: c.Channel, WebsiteID: c.WebsiteID}
		return s.Events.Record(ctx, q, scope, event.ConversationDeleted, conv,
			Deleted{ID: c.ID, Object: "conversation", Deleted: true, ContactID: c.ContactID, MessageIDs: view.OrEmpty(messages)})
	})
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return &model.Deleted{ID: id, Object: "conversation", Deleted: true}, nil
}
