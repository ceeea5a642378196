package repo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// A hook's pending predecessors are its customers' unprocessed hooks sent
// before it, then received before it, in that order; a hook stored without
// a sent_at counts from its arrival; a processed hook or one of another
// customer is none.
func TestPendingPredecessorsFollowTheTimeSent(t *testing.T) {
	store := repotest.NewStore(t)
	ctx := t.Context()
	at := func(s int) time.Time { return time.Date(2026, 3, 4, 6, 0, s, 0, time.UTC) }
	sent := func(s int) *time.Time { v := at(s); return &v }
	hooks := []*repo.ProviderHook{
		{ID: "hook_b", ReceivedAt: at(50), SentAt: sent(30)},
		{ID: "hook_a", ReceivedAt: at(51), SentAt: sent(10)},
		{ID: "hook_c", ReceivedAt: at(52), SentAt: sent(30)},
		{ID: "hook_self", ReceivedAt: at(53), SentAt: sent(40)},
		{ID: "hook_later", ReceivedAt: at(54), SentAt: sent(45)},
		{ID: "hook_legacy", ReceivedAt: at(35)},
		{ID: "hook_done", ReceivedAt: at(55), SentAt: sent(5)},
		{ID: "hook_other", ReceivedAt: at(56), SentAt: sent(5), OrderKeys: []string{"whatsapp:106:2"}},
	}
	for _, h := range hooks {
		h.Source, h.Payload = "meta", []byte(`{}`)
		if h.OrderKeys == nil {
			h.OrderKeys = []string{"whatsapp:106:1"}
		}
		if err := store.InsertProviderHook(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.DB.Exec(`UPDATE provider_hooks SET sent_at = NULL WHERE id = 'hook_legacy'`); err != nil {
		t.Fatal(err)
	}
	if err := store.FinishProviderHook(ctx, "hook_done", at(60), ""); err != nil {
		t.Fatal(err)
	}
	self, err := store.ProviderHook(ctx, "hook_self")
	if err != nil || self.SentAt == nil || !self.SentAt.Equal(at(40)) {
		t.Fatalf("hook %+v (%v), want sent at %v", self, err, at(40))
	}
	got, err := store.PendingPredecessors(ctx, self, 10)
	if want := []string{"hook_a", "hook_b", "hook_c", "hook_legacy"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("predecessors %v (%v), want %v", got, err, want)
	}
}
