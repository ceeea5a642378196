package contact_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/seed/seedtest"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

var epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// seeded is the contacts service over a fresh database holding the API
// tests' fixture (rest/testdata/fixture.json).
func seeded(t *testing.T) (*contact.Service, *repo.Store) {
	t.Helper()
	now := func() time.Time { return epoch }
	store := seedtest.Store(t, now)
	return &contact.Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}}, store
}

// caller is a key of ws_main with every scope: a test key, limited to
// websites when given.
func caller(live bool, websites ...string) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", Livemode: live,
		Scopes: []string{"*"}, WebsiteIDs: websites, Version: auth.ServedVersion})
}

// contactUpdates are the changed lists of the contact.updated events of a
// contact, oldest first.
func contactUpdates(t *testing.T, store *repo.Store, id string) [][]string {
	t.Helper()
	var rows []json.RawMessage
	if err := store.DB.Select(&rows, `SELECT envelope->'data' FROM events WHERE type = 'contact.updated'
		AND envelope->'data'->>'id' = $1 ORDER BY seq`, id); err != nil {
		t.Fatal(err)
	}
	out := [][]string{}
	for _, r := range rows {
		var d struct {
			Changed []string `json:"changed"`
		}
		if err := json.Unmarshal(r, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Changed)
	}
	return out
}

// wantUpdates fails t unless the contact's contact.updated events changed
// exactly want, in order.
func wantUpdates(t *testing.T, store *repo.Store, id string, want ...[]string) {
	t.Helper()
	got := contactUpdates(t, store, id)
	if want == nil {
		want = [][]string{}
	}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("contact.updated changed lists of %s: got %q, want %q", id, got, want)
	}
}
