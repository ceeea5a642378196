package conversation_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seed/seedtest"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

var epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

type noSigner struct{}

func (noSigner) SignAttachments(...*model.Message) {}

// seeded is the conversations service over a fresh database holding the
// API tests' fixture (seedtest), and the test key's caller of its main
// workspace.
func seeded(t *testing.T) (*conversation.Service, *repo.Store, context.Context) {
	t.Helper()
	now := func() time.Time { return epoch }
	store := seedtest.Store(t, now)
	svc := &conversation.Service{Store: store, Clock: now, Events: event.Recorder{Clock: now}, Files: noSigner{}}
	ctx := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}})
	return svc, store, ctx
}

// updates returns the changed lists of the conversation.updated events
// recorded for a conversation, oldest first.
func updates(t *testing.T, store *repo.Store, conversationID string) [][]string {
	t.Helper()
	var rows []json.RawMessage
	err := store.DB.Select(&rows, `SELECT envelope->'data' FROM events WHERE type = 'conversation.updated'
		AND conversation_id = $1 ORDER BY seq`, conversationID)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
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

func ptr[T any](v T) *T { return &v }

func TestUpdateModeAndAssignment(t *testing.T) {
	svc, store, ctx := seeded(t)
	const id = "conv_wa_25h" // open, mode ai
	c, err := svc.Update(ctx, id, model.UpdateConversationInput{Mode: ptr("human")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "queued_for_human" {
		t.Errorf("mode human on an AI conversation: mode = %q, want queued_for_human", c.Mode)
	}
	c, err = svc.Update(ctx, id, model.UpdateConversationInput{AssignedAgentID: graphql.OmittableOf(ptr("usr_alice")),
		Tags: []string{"vip", "vip"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.AssignedAgentID == nil || *c.AssignedAgentID != "usr_alice" || !slices.Equal(c.Tags, []string{"vip"}) {
		t.Errorf("assigned %v, tags %q; want usr_alice, [vip]", c.AssignedAgentID, c.Tags)
	}
	// The same values again change nothing and announce nothing.
	if _, err := svc.Update(ctx, id, model.UpdateConversationInput{Mode: ptr("human"),
		AssignedAgentID: graphql.OmittableOf(ptr("usr_alice")), Tags: []string{"vip"}}); err != nil {
		t.Fatal(err)
	}
	got := updates(t, store, id)
	want := [][]string{{"mode"}, {"assigned_agent_id", "tags"}}
	if len(got) != len(want) || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Errorf("conversation.updated changed lists = %q, want %q", got, want)
	}
	c, err = svc.Update(ctx, id, model.UpdateConversationInput{Mode: ptr("ai")})
	if err != nil || c.Mode != "ai" {
		t.Errorf("mode ai: mode %v, error %v; want ai", c, err)
	}
}

func TestUpdateClosedAndReopened(t *testing.T) {
	svc, store, ctx := seeded(t)
	const id = "conv_web_closed" // closed, mode ai, on a website the service processes
	_, err := svc.Update(ctx, id, model.UpdateConversationInput{Mode: ptr("human")})
	if e, ok := apierr.As(err); !ok || e.Code != apierr.ConversationClosed {
		t.Fatalf("mode on a closed conversation: error %v, want conversation_closed", err)
	}
	// Status comes first, so reopening and changing the mode at once works.
	c, err := svc.Update(ctx, id, model.UpdateConversationInput{Status: ptr("open"), Mode: ptr("human")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "open" || c.Mode != "queued_for_human" {
		t.Errorf("reopened with mode human: status %q, mode %q; want open, queued_for_human", c.Status, c.Mode)
	}
	if got := updates(t, store, id); len(got) != 1 || !slices.Equal(got[0], []string{"status", "mode"}) {
		t.Errorf("conversation.updated changed lists = %q, want [[status mode]]", got)
	}
}

func TestUpdateRefusals(t *testing.T) {
	svc, store, ctx := seeded(t)
	for _, c := range []struct {
		name string
		id   string
		in   model.UpdateConversationInput
		code apierr.Code
	}{
		{"unknown status", "conv_wa_1h", model.UpdateConversationInput{Status: ptr("archived")}, apierr.InvalidRequest},
		{"unknown mode", "conv_wa_1h", model.UpdateConversationInput{Mode: ptr("external")}, apierr.InvalidRequest},
		{"inactive agent", "conv_wa_1h", model.UpdateConversationInput{AssignedAgentID: graphql.OmittableOf(ptr("usr_bob"))}, apierr.AgentNotFound},
		{"blank tag", "conv_wa_1h", model.UpdateConversationInput{Tags: []string{" "}}, apierr.InvalidRequest},
		{"unknown conversation", "conv_nope", model.UpdateConversationInput{Status: ptr("closed")}, apierr.ConversationNotFound},
		{"a live conversation, for a test key", "conv_live", model.UpdateConversationInput{Status: ptr("closed")}, apierr.ConversationNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Update(ctx, c.id, c.in)
			if e, ok := apierr.As(err); !ok || e.Code != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
		})
	}
	if got := updates(t, store, "conv_wa_1h"); len(got) != 0 {
		t.Errorf("refused updates announced %q", got)
	}
	if got := updates(t, store, "conv_live"); len(got) != 0 {
		t.Errorf("refused updates announced %q", got)
	}
}
