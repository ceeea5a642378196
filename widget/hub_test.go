package widget

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
)

// fakeVisitors answers the hub's questions from memory.
type fakeVisitors struct {
	pending []repo.PendingMessage
	chats   []repo.ChatState
}

func (f *fakeVisitors) Pending(context.Context, []string) ([]repo.PendingMessage, error) {
	return f.pending, nil
}
func (f *fakeVisitors) Chats(context.Context, []string) ([]repo.ChatState, error) {
	return f.chats, nil
}
func (f *fakeVisitors) Delivered(context.Context, string, string) error   { return nil }
func (f *fakeVisitors) Read(context.Context, *repo.Visitor, string) error { return nil }
func (f *fakeVisitors) MessageView(m *repo.Message) *visitor.Message {
	return &visitor.Message{ID: m.ID, ConversationID: m.ConversationID}
}

func pending(id, contact, website string) repo.PendingMessage {
	return repo.PendingMessage{Message: repo.Message{ID: id, WorkspaceID: "ws_a", ConversationID: "conv_" + contact},
		ContactID: contact, WebsiteID: website}
}

func drain(s *sub) []Push {
	var out []Push
	for {
		select {
		case p := <-s.out:
			out = append(out, p)
		default:
			return out
		}
	}
}

func TestHubPushesEachPendingMessageOnceToItsVisitor(t *testing.T) {
	f := &fakeVisitors{pending: []repo.PendingMessage{pending("msg_1", "ct_a", "web_a"), pending("msg_2", "ct_b", "web_a"),
		pending("msg_3", "ct_a", "web_other")}}
	h := &Hub{Visitors: f}
	a := h.register(&repo.Visitor{ID: "vis_a", ContactID: "ct_a", WebsiteID: "web_a"})
	b := h.register(&repo.Visitor{ID: "vis_b", ContactID: "ct_b", WebsiteID: "web_a"})
	h.check(context.Background())
	got := drain(a)
	if len(got) != 1 || got[0].Message.ID != "msg_1" || got[0].workspaceID != "ws_a" {
		t.Fatalf("visitor a got %+v", got)
	}
	if got := drain(b); len(got) != 1 || got[0].Message.ID != "msg_2" {
		t.Fatalf("visitor b got %+v", got)
	}
	// Still pending (not yet marked delivered): not handed again.
	h.check(context.Background())
	if got := drain(a); len(got) != 0 {
		t.Fatalf("handed twice: %+v", got)
	}
	// Gone from pending, then pending again (a new message with the same
	// id cannot exist, but a forgotten one is handed again).
	f.pending = nil
	h.check(context.Background())
	f.pending = []repo.PendingMessage{pending("msg_1", "ct_a", "web_a")}
	h.check(context.Background())
	if got := drain(a); len(got) != 1 {
		t.Fatalf("after it left pending: %+v", got)
	}
	h.unregister(b)
	f.pending = []repo.PendingMessage{pending("msg_4", "ct_b", "web_a")}
	h.check(context.Background())
	if got := drain(b); len(got) != 0 {
		t.Fatalf("an unregistered widget got %+v", got)
	}
}

func TestHubPushesACloseOnce(t *testing.T) {
	f := &fakeVisitors{chats: []repo.ChatState{{ConversationID: "conv_1", ContactID: "ct_a", WebsiteID: "web_a", Status: "open"}}}
	h := &Hub{Visitors: f}
	a := h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	h.check(context.Background())
	if got := drain(a); len(got) != 0 {
		t.Fatalf("an open chat pushed %+v", got)
	}
	f.chats[0].Status = "closed"
	h.check(context.Background())
	h.check(context.Background())
	got := drain(a)
	if len(got) != 1 || got[0].Type != "conversation" || got[0].Status != "closed" || !*got[0].RatingRequested {
		t.Fatalf("close pushes %+v", got)
	}
	// A widget connecting after a rated close is told, without a request.
	f.chats[0].Rated = true
	late := h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	h.check(context.Background())
	if got := drain(late); len(got) != 1 || *got[0].RatingRequested {
		t.Fatalf("late widget got %+v", got)
	}
}

func TestHubTypingReachesTheVisitorOnly(t *testing.T) {
	h := &Hub{Visitors: &fakeVisitors{}}
	a := h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	b := h.register(&repo.Visitor{ContactID: "ct_b", WebsiteID: "web_a"})
	h.typing(`{"from":"agent","contact_id":"ct_a","website_id":"web_a","conversation_id":"conv_1"}`)
	h.typing(`{"from":"visitor","contact_id":"ct_b","website_id":"web_a"}`)
	h.typing(`not json`)
	if got := drain(a); len(got) != 1 || got[0].Type != "typing" || got[0].ConversationID != "conv_1" {
		t.Errorf("visitor a got %+v", got)
	}
	if got := drain(b); len(got) != 0 {
		t.Errorf("visitor b got %+v (a visitor's own typing is not echoed)", got)
	}
}

func TestWakeCoalesces(t *testing.T) {
	h := &Hub{Every: time.Hour}
	for i := 0; i < 5; i++ {
		h.Wake()
	}
	if len(h.wake) != 1 {
		t.Errorf("%d wake-ups queued", len(h.wake))
	}
}

func TestAdapter(t *testing.T) {
	r, err := Adapter{}.Send(context.Background(), &channels.Message{ID: "msg_1", To: "vis_1"})
	if err != nil || len(r.ProviderIDs) != 1 || r.ProviderIDs[0] != "msg_1" {
		t.Errorf("receipt %+v, %v", r, err)
	}
	if _, err := (Adapter{}).Send(context.Background(), &channels.Message{ID: "msg_2"}); channels.AsRefusal(err).Code != "no_recipient" {
		t.Errorf("no visitor: %v", err)
	}
}
