package widget

import (
	"context"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
)

// withContacts answers which visitors have a contact from a map.
type withContacts struct {
	*fakeVisitors
	contacts map[string]string
	asked    int
}

func (w *withContacts) Contacts(_ context.Context, ids []string) ([]repo.VisitorContact, error) {
	w.asked++
	var out []repo.VisitorContact
	for _, id := range ids {
		if c := w.contacts[id]; c != "" {
			out = append(out, repo.VisitorContact{VisitorID: id, ContactID: c})
		}
	}
	return out, nil
}

// A widget connected before its visitor's first message is served under
// the contact that message gave it, from the next check on.
func TestHubFindsTheContactOfANewVisitor(t *testing.T) {
	ctx := context.Background()
	f := &withContacts{fakeVisitors: &fakeVisitors{pending: []repo.PendingMessage{pending("msg_1", "ct_new", "web_a")}},
		contacts: map[string]string{}}
	h := &Hub{Visitors: f}
	s := h.register(&repo.Visitor{ID: "vis_new", WebsiteID: "web_a"})
	h.check(ctx, Lag, false)
	if got := drain(s); len(got) != 0 || f.asked != 1 || len(f.fakeVisitors.asked) != 0 {
		t.Fatalf("without a contact: pushed %v, asked %d times, pending asked for %q", got, f.asked, f.fakeVisitors.asked)
	}
	f.contacts["vis_new"] = "ct_new"
	h.check(ctx, Lag, false)
	if got := drain(s); len(got) != 1 || got[0].messageID != "msg_1" {
		t.Errorf("with its contact: pushed %v", got)
	}
	if v := h.visitorOf(s); v.ContactID != "ct_new" {
		t.Errorf("the widget's visitor has contact %q", v.ContactID)
	}
	h.check(ctx, Lag, false)
	if f.asked != 2 {
		t.Errorf("asked %d times for contacts; with no widget lacking one, a check asks nothing", f.asked)
	}
}
