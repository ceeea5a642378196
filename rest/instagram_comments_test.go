package rest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	inbox "github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// recordingAdapter accepts and keeps what it was asked to send.
type recordingAdapter struct {
	mu   sync.Mutex
	sent []channels.Message
}

func (a *recordingAdapter) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent = append(a.sent, *m)
	return &channels.Receipt{ProviderIDs: []string{"provider_" + m.ID}}, nil
}

func (a *recordingAdapter) last() channels.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent[len(a.sent)-1]
}

// Replies in a live comment conversation answer the provider's comment id:
// public (reply_as comment, or none) and private (reply_as dm, once).
func TestInstagramCommentRepliesAnswerTheProviderComment(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	connectProviders(api)
	rec := &recordingAdapter{}
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"instagram": rec} })
	scope := repo.Scope{WorkspaceID: "ws_main", Livemode: true}
	accs, err := api.Store.Accounts(t.Context(), scope, "instagram")
	if err != nil || len(accs) == 0 {
		t.Fatal(accs, err)
	}
	svc := &instagram.Service{Inbound: &inbox.Service{Store: api.Store, Clock: api.Clock.Now, Events: event.Recorder{Clock: api.Clock.Now}}}
	in, err := svc.Comment(t.Context(), scope, &accs[0], &meta.InstagramComment{Field: "comments", ID: "17865799348089039",
		Text: "price?", FromID: "IGSID-ana", FromUsername: "ana", MediaID: "17999", Time: api.Clock.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	conv := in.Conversation.ID
	for _, replyAs := range []any{"comment", nil, "dm"} {
		body := map[string]any{"conversation_id": conv, "text": "It is 10 EUR"}
		if replyAs != nil {
			body["reply_as"] = replyAs
		}
		api.Want(sendMsg(api, "live_all", body), 201, "")
		m := rec.last()
		want, _ := replyAs.(string)
		if m.CommentID != "17865799348089039" || m.ReplyAs != want || m.To != "IGSID-ana" {
			t.Fatalf("reply_as %v: the adapter got comment %q reply_as %q to %q", replyAs, m.CommentID, m.ReplyAs, m.To)
		}
	}
	api.Want(sendMsg(api, "live_all", map[string]any{"conversation_id": conv, "text": "again", "reply_as": "dm"}), 422, "private_reply_used")
}
