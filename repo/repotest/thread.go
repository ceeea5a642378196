package repotest

import (
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo"
)

// at is when the rows Conversation and Message build were written.
var at = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// Conversation is an open conversation on a channel, without a contact,
// for Thread: of the website web_1, on the account acc_1 (web_1 on the
// website channel).
func Conversation(workspaceID, id, channel string, live bool) *repo.Conversation {
	account := "acc_1"
	if channel == "website" {
		account = "web_1"
	}
	return &repo.Conversation{ID: id, WorkspaceID: workspaceID, Livemode: live, Channel: channel, AccountID: account,
		WebsiteID: "web_1", Status: "open", Mode: "human", Tags: pq.StringArray{}, IntegrationReplies: true,
		MessageCount: 1, CreatedAt: at, UpdatedAt: at, LastMessageAt: at}
}

// Message is a text message of a conversation, for Thread; delivery is
// its JSON ("" for none).
func Message(conv *repo.Conversation, id, direction, status, delivery string) *repo.Message {
	text := "hello"
	m := &repo.Message{ID: id, WorkspaceID: conv.WorkspaceID, Livemode: conv.Livemode, ConversationID: conv.ID,
		Channel: conv.Channel, Direction: direction, SenderType: "api", Type: "text", Text: &text,
		Attachments: repo.JSONB(`[]`), Status: status, CreatedAt: at}
	if delivery != "" {
		m.Delivery = repo.JSONB(delivery)
	}
	return m
}

// Thread stores a conversation and its messages, with a bare workspace and
// website of the conversation's ids (upserted, so threads may share them).
func Thread(t testing.TB, store *repo.Store, conv *repo.Conversation, msgs ...*repo.Message) {
	t.Helper()
	err := store.InTx(t.Context(), func(q repo.Queries) error {
		if err := q.UpsertWorkspace(t.Context(), &repo.Workspace{ID: conv.WorkspaceID, Name: conv.WorkspaceID,
			Plan: "pro", Status: "active", MessagesLimit: 100, RatePerSecond: 1, RatePerMinute: 1}); err != nil {
			return err
		}
		if err := q.UpsertWebsite(t.Context(), &repo.Website{ID: conv.WebsiteID, WorkspaceID: conv.WorkspaceID,
			Name: conv.WebsiteID, Domains: pq.StringArray{conv.WebsiteID + ".example"}}); err != nil {
			return err
		}
		if err := q.UpsertConversation(t.Context(), conv); err != nil {
			return err
		}
		for _, m := range msgs {
			if err := q.UpsertMessage(t.Context(), m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("store thread %s: %v", conv.ID, err)
	}
}
