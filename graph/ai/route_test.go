package ai_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

var mainScope = repo.Scope{WorkspaceID: "ws_main"}

// conversations opens n website chats in the sandbox of ws_main, each in mode ai.
func conversations(t *testing.T, api *resttest.API, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		data := api.Inbound("website", fmt.Sprintf("visitor-%03d", i), "hello there")
		ids[i] = data["conversation"].(map[string]any)["id"].(string)
	}
	return ids
}

// agentsOf counts each agent's open assigned conversations.
func agentsOf(t *testing.T, api *resttest.API) map[string]int {
	t.Helper()
	loads, err := api.Store.AgentLoads(t.Context(), "ws_main")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range loads {
		out[l.ID] = l.Open
	}
	return out
}

// TestRoutingUnderConcurrentHandOffs hands off 50 conversations at once to
// two active agents with room for 10 and 15: exactly 25 are assigned, none
// over max_open, none twice (one assignment event each at most), the
// inactive agent gets none; closing three of Alice's gives her the three
// longest waiting.
func TestRoutingUnderConcurrentHandOffs(t *testing.T) {
	api := resttest.New(t)
	ctx := t.Context()
	if err := api.Store.UpsertAgent(ctx, &repo.Agent{ID: "usr_carol", WorkspaceID: "ws_main", Name: "Carol", Active: true}); err != nil {
		t.Fatal(err)
	}
	for id, n := range map[string]int{"usr_alice": 10, "usr_carol": 15, "usr_bob": 50} {
		if err := api.Store.SetAgentMaxOpen(ctx, "ws_main", id, n); err != nil {
			t.Fatal(err)
		}
	}
	ids := conversations(t, api, 50)
	svc := api.Resolver.AI
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- svc.HandOff(context.WithoutCancel(ctx), mainScope, id)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	loads := agentsOf(t, api)
	if loads["usr_alice"] != 10 || loads["usr_carol"] != 15 || loads["usr_bob"] != 0 {
		t.Fatalf("open per agent = %v, want alice 10, carol 15, bob 0", loads)
	}
	assignments := map[string]int{}
	for _, e := range api.Events("ws_main") {
		data := e.Envelope["data"].(map[string]any)
		if e.Type == "conversation.updated" && fmt.Sprint(data["changed"]) == "[assigned_agent_id]" {
			assignments[data["id"].(string)]++
		}
	}
	if len(assignments) != 25 {
		t.Errorf("%d conversations got an assignment event, want 25", len(assignments))
	}
	for id, n := range assignments {
		if n != 1 {
			t.Errorf("%s assigned %d times", id, n)
		}
	}
	waiting, err := api.Store.HumanQueue(ctx, mainScope, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 25 {
		t.Fatalf("%d waiting, want 25", len(waiting))
	}

	// Alice closes three: the three longest waiting become hers.
	var alices []string
	if err := api.Store.DB.Select(&alices, `SELECT id FROM conversations WHERE assigned_agent_id = 'usr_alice' ORDER BY id LIMIT 3`); err != nil {
		t.Fatal(err)
	}
	for _, id := range alices {
		api.Want(api.Do("PATCH", "/v1/conversations/"+id, "test_all", map[string]any{"status": "closed"}), 200, "")
	}
	if err := svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	if got := agentsOf(t, api); got["usr_alice"] != 10 || got["usr_carol"] != 15 {
		t.Fatalf("after three closes: open per agent = %v, want alice 10 again, carol 15", got)
	}
	for _, c := range waiting[:3] {
		got, err := api.Store.Conversation(ctx, mainScope, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.AssignedAgentID == nil || *got.AssignedAgentID != "usr_alice" {
			t.Errorf("longest waiting %s assigned to %v, want usr_alice", c.ID, got.AssignedAgentID)
		}
	}
	if still, _ := api.Store.HumanQueue(ctx, mainScope, 100); len(still) != 22 || still[0].ID != waiting[3].ID {
		t.Errorf("queue after: %d waiting, want 22 starting with %s", len(still), waiting[3].ID)
	}
}

// TestRoutingCountsBothModes: a live conversation assigned to an agent takes
// room that a sandbox hand-off then lacks.
func TestRoutingCountsBothModes(t *testing.T) {
	api := resttest.New(t)
	ctx := t.Context()
	if err := api.Store.SetAgentMaxOpen(ctx, "ws_main", "usr_alice", 1); err != nil {
		t.Fatal(err)
	}
	ids := conversations(t, api, 1)
	if _, err := api.Store.DB.Exec(`UPDATE conversations SET assigned_agent_id = 'usr_alice', livemode = true WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	more := conversations(t, api, 1)
	if err := api.Resolver.AI.HandOff(ctx, mainScope, more[0]); err != nil {
		t.Fatal(err)
	}
	c, err := api.Store.Conversation(ctx, mainScope, more[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "queued_for_human" || c.AssignedAgentID != nil {
		t.Errorf("mode %s assigned %v, want queued_for_human and waiting (alice is full with a live one)", c.Mode, c.AssignedAgentID)
	}
}
