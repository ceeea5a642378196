package widget

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
)

// fakeVisitors answers the hub's questions from memory: changed are the
// contacts that changed since any time; asked, the contacts Pending was
// last asked for.
type fakeVisitors struct {
	pending []repo.PendingMessage
	chats   []repo.ChatState
	changed []string
	asked   []string
	since   []time.Time
}

func (f *fakeVisitors) Changed(_ context.Context, since time.Time) ([]string, error) {
	f.since = append(f.since, since)
	return f.changed, nil
}
func (f *fakeVisitors) Pending(_ context.Context, contacts []string) ([]repo.PendingMessage, error) {
	f.asked = slices.Sorted(slices.Values(contacts))
	var out []repo.PendingMessage
	for _, m := range f.pending {
		if slices.Contains(contacts, m.ContactID) {
			out = append(out, m)
		}
	}
	return out, nil
}
func (f *fakeVisitors) Chats(_ context.Context, contacts []string) ([]repo.ChatState, error) {
	var out []repo.ChatState
	for _, c := range f.chats {
		if slices.Contains(contacts, c.ContactID) {
			out = append(out, c)
		}
	}
	return out, nil
}
func (f *fakeVisitors) Delivered(context.Context, string, string) error   { return nil }
func (f *fakeVisitors) Read(context.Context, *repo.Visitor, string) error { return nil }
func (f *fakeVisitors) Contacts(context.Context, []string) ([]repo.VisitorContact, error) {
	return nil, nil
}
func (f *fakeVisitors) MessageView(m *repo.Message) any {
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
	ctx := context.Background()
	f := &fakeVisitors{pending: []repo.PendingMessage{pending("msg_1", "ct_a", "web_a"), pending("msg_2", "ct_b", "web_a"),
		pending("msg_3", "ct_a", "web_other")}}
	h := &Hub{Visitors: f}
	a := h.register(&repo.Visitor{ID: "vis_a", ContactID: "ct_a", WebsiteID: "web_a"})
	b := h.register(&repo.Visitor{ID: "vis_b", ContactID: "ct_b", WebsiteID: "web_a"})
	h.check(ctx, Lag, false) // the widgets just connected are checked in full
	got := drain(a)
	if len(got) != 1 || got[0].messageID != "msg_1" || got[0].workspaceID != "ws_a" {
		t.Fatalf("visitor a got %+v", got)
	}
	if got := drain(b); len(got) != 1 || got[0].messageID != "msg_2" {
		t.Fatalf("visitor b got %+v", got)
	}
	// Nothing changed: nobody's messages are asked for.
	f.asked = nil
	h.check(ctx, Lag, false)
	if f.asked != nil {
		t.Fatalf("asked for %v with nothing changed", f.asked)
	}
	// Still pending (not yet marked delivered): not handed again.
	f.changed = []string{"ct_a"}
	h.check(ctx, Lag, false)
	if got := drain(a); len(got) != 0 {
		t.Fatalf("handed twice: %+v", got)
	}
	// Gone from pending, then pending again (a new message with the same
	// id cannot exist, but a forgotten one is handed again).
	saved := f.pending
	f.pending = nil
	h.check(ctx, Lag, false)
	f.pending = saved
	h.check(ctx, Lag, false)
	if got := drain(a); len(got) != 1 || got[0].messageID != "msg_1" {
		t.Fatalf("after it left pending: %+v", got)
	}
	h.unregister(b)
	f.pending = []repo.PendingMessage{pending("msg_4", "ct_b", "web_a")}
	f.changed, f.asked = []string{"ct_b"}, nil
	h.check(ctx, Lag, false)
	if got := drain(b); len(got) != 0 || f.asked != nil {
		t.Fatalf("an unregistered widget got %+v (asked for %v)", got, f.asked)
	}
}

// TestHubReplyReachesOnlyItsVisitor: of many connected widgets, a reply is
// looked up and pushed for its visitor alone; a changed visitor connected
// elsewhere is not looked up here.
func TestHubReplyReachesOnlyItsVisitor(t *testing.T) {
	ctx := context.Background()
	f := &fakeVisitors{}
	h := &Hub{Visitors: f}
	subs := map[string]*sub{}
	for i := range 100 {
		c := fmt.Sprintf("ct_%d", i)
		subs[c] = h.register(&repo.Visitor{ContactID: c, WebsiteID: "web_a"})
	}
	second := h.register(&repo.Visitor{ContactID: "ct_7", WebsiteID: "web_a"}) // a second tab
	h.check(ctx, Lag, false)
	f.pending = []repo.PendingMessage{pending("msg_r", "ct_7", "web_a"), pending("msg_x", "ct_elsewhere", "web_a")}
	f.changed = []string{"ct_7", "ct_elsewhere"}
	h.check(ctx, Lag, false)
	if !slices.Equal(f.asked, []string{"ct_7"}) {
		t.Errorf("asked for %v, want only ct_7", f.asked)
	}
	for c, s := range subs {
		got := drain(s)
		if c == "ct_7" {
			if len(got) != 1 || got[0].messageID != "msg_r" {
				t.Errorf("the visitor got %+v", got)
			}
		} else if len(got) != 0 {
			t.Errorf("%s got %+v", c, got)
		}
	}
	if got := drain(second); len(got) != 1 || got[0].messageID != "msg_r" {
		t.Errorf("the visitor's second widget got %+v", got)
	}
}

// TestHubCheckWindows: a wake-up's check looks for changes since the last
// check began, less Lag; the periodic one for those of the last Recent.
func TestHubCheckWindows(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	f := &fakeVisitors{}
	h := &Hub{Visitors: f, Clock: func() time.Time { return now }}
	h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	h.check(ctx, Lag, false)
	now = now.Add(5 * time.Second)
	h.check(ctx, Lag, false)
	now = now.Add(time.Hour)
	h.check(ctx, Recent, true)
	began := now.Add(-time.Hour - 5*time.Second)
	want := []time.Time{time.Time{}.Add(-Lag), began.Add(-Lag), now.Add(-Recent)}
	if !slices.Equal(f.since, want) {
		t.Errorf("windows since %v, want %v", f.since, want)
	}
}

func TestHubPushesACloseOnce(t *testing.T) {
	f := &fakeVisitors{chats: []repo.ChatState{{ConversationID: "conv_1", ContactID: "ct_a", WebsiteID: "web_a", Status: "open"}}}
	h := &Hub{Visitors: f}
	a := h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	h.check(context.Background(), Lag, false)
	if got := drain(a); len(got) != 0 {
		t.Fatalf("an open chat pushed %+v", got)
	}
	f.chats[0].Status = "closed"
	f.changed = []string{"ct_a"}
	h.check(context.Background(), Lag, false)
	h.check(context.Background(), Lag, false)
	got := drain(a)
	if len(got) != 1 || got[0].Type != "conversation" || got[0].Status != "closed" || !*got[0].RatingRequested {
		t.Fatalf("close pushes %+v", got)
	}
	// A widget connecting after a rated close is told, without a request.
	f.chats[0].Rated = true
	late := h.register(&repo.Visitor{ContactID: "ct_a", WebsiteID: "web_a"})
	h.check(context.Background(), Lag, false)
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
