package repo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo"
)

// TestWebsiteChanges: the contacts with an outbound live website message
// still sent written since the time, or a live website chat closed since
// it, each once; not a message received, settled, older, inbound, of
// another channel or of the sandbox, nor a chat open or closed before.
func TestWebsiteChanges(t *testing.T) {
	store := sendFixture(t)
	since := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC)
	before := since.Add(-time.Millisecond)
	contact := func(id string) {
		if err := store.UpsertContact(t.Context(), &repo.Contact{ID: id, WorkspaceID: "ws_1", Livemode: true, Name: id,
			Source: "api", CreatedAt: before, UpdatedAt: before}); err != nil {
			t.Fatal(err)
		}
	}
	chat := func(id, contactID, status string, live bool, updated time.Time) {
		c := &repo.Conversation{ID: id, WorkspaceID: "ws_1", Livemode: live, Channel: "website", AccountID: "web_1",
			WebsiteID: "web_1", ContactID: &contactID, Status: status, Mode: "human", MessageCount: 1, Tags: pq.StringArray{},
			CreatedAt: before, UpdatedAt: updated, LastMessageAt: before}
		if err := store.UpsertConversation(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	web := func(m *repo.Message) { m.Channel = "website" }
	for _, c := range []string{"ct_reply", "ct_twice", "ct_closed", "ct_quiet", "ct_old"} {
		contact(c)
	}
	chat("conv_reply", "ct_reply", "open", true, before)
	chat("conv_twice", "ct_twice", "closed", true, since) // a reply and a close: once
	chat("conv_closed", "ct_closed", "closed", true, since)
	chat("conv_quiet", "ct_quiet", "open", true, since) // changed, not closed
	chat("conv_old", "ct_old", "closed", true, before)
	chat("conv_sandbox", "ct_full", "closed", false, since)
	storeSent(t, store, "msg_reply", "conv_reply", true, since, web)
	storeSent(t, store, "msg_twice", "conv_twice", true, since.Add(time.Second), web)
	storeSent(t, store, "msg_old", "conv_old", true, before, web)
	storeSent(t, store, "msg_received", "conv_quiet", true, since, func(m *repo.Message) { web(m); m.Status = "delivered" })
	storeSent(t, store, "msg_inbound", "conv_quiet", true, since, func(m *repo.Message) { web(m); m.Direction = "inbound" })
	storeSent(t, store, "msg_sandbox", "conv_web", false, since, web)
	storeSent(t, store, "msg_wa", "conv_live", true, since, nil)
	got, err := store.WebsiteChanges(t.Context(), since)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"ct_closed", "ct_reply", "ct_twice"}; !slices.Equal(got, want) {
		t.Errorf("changed %v, want %v", got, want)
	}
}
