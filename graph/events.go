package graph

import (
	"context"
	"encoding/json"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Event types (decisions 7).
const (
	EventMessageReceived     = "message.received"
	EventMessageSent         = "message.sent"
	EventMessageStatus       = "message.status"
	EventConversationCreated = "conversation.created"
	EventConversationUpdated = "conversation.updated"
	EventContactCreated      = "contact.created"
	EventContactUpdated      = "contact.updated"
	EventContactDeleted      = "contact.deleted"
)

// conversationUpdate is the data of conversation.updated: the conversation
// and the names of the fields that changed.
type conversationUpdate struct {
	*model.Conversation
	Changed []string `json:"changed"`
}

// contactUpdate is the data of contact.updated.
type contactUpdate struct {
	*model.Contact
	Changed []string `json:"changed"`
}

// record writes an event in the caller's transaction, so the change and its
// announcement commit together or not at all.
func (r *Resolver) record(ctx context.Context, q repo.Queries, s repo.Scope, typ string, conv *model.Conversation, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	now := r.now()
	e := &repo.Event{
		ID: repo.NewID("evt_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode, Type: typ, CreatedAt: now,
	}
	if conv != nil {
		e.Channel, e.WebsiteID, e.ConversationID = &conv.Channel, &conv.WebsiteID, &conv.ID
	}
	envelope := model.Event{
		ID: e.ID, Type: typ, CreatedAt: model.NewTimestamp(now), Channel: e.Channel,
		WebsiteID: e.WebsiteID, Livemode: s.Livemode, Data: raw,
	}
	if e.Envelope, err = json.Marshal(envelope); err != nil {
		return err
	}
	return q.InsertEvent(ctx, e)
}
