package ai_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/ai"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// messages lists a conversation's messages, oldest first, as the API shows them.
func messages(t *testing.T, api *resttest.API, convID string) []map[string]any {
	t.Helper()
	items := api.Want(api.Do("GET", "/v1/conversations/"+convID+"/messages?limit=100", "test_all", nil), 200, "").Items()
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i] = it.(map[string]any)
	}
	return out
}

// TestAnswersFromKnowledgeInOrder: each customer message of an ai
// conversation gets its answer, in order, as a message with sender ai and
// message.sent; a message asking for a person hands off; a later message of
// the queued conversation is not answered.
func TestAnswersFromKnowledgeInOrder(t *testing.T) {
	api := resttest.New(t)
	ctx := t.Context()
	svc := api.Resolver.AI
	for _, q := range []string{
		`INSERT INTO knowledge_entries (id, workspace_id, question, answer, created_at, updated_at) VALUES
		 ('kb_t_hours', 'ws_main', 'When are you open?', 'Mon-Fri 9-17 (hours).', now(), now()),
		 ('kb_t_ship', 'ws_main', 'How long does shipping take?', 'Two business days (shipping).', now(), now())`,
	} {
		if _, err := api.Store.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	conv := api.Inbound("website", "visitor-order", "what are your opening hours?")["conversation"].(map[string]any)["id"].(string)
	api.Clock.Advance(time.Second)
	api.Inbound("website", "visitor-order", "and how long until my delivery arrives?")
	api.Clock.Advance(time.Second)
	if err := svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	// The replies in the order they were sent (message.sent events).
	var got []string
	for _, e := range api.Events("ws_main") {
		if e.Type == "message.sent" {
			m := e.Envelope["data"].(map[string]any)
			got = append(got, fmt.Sprintf("%s: %s", m["sender"].(map[string]any)["type"], m["text"]))
		}
	}
	want := []string{"ai: Mon-Fri 9-17 (hours).", "ai: Two business days (shipping)."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replies %v, want %v", got, want)
	}
	api.Clock.Advance(time.Second)

	api.Inbound("website", "visitor-order", "Can I speak to a REPRESENTATIVE?")
	api.Clock.Advance(time.Second)
	if err := svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	api.Clock.Advance(time.Second)
	api.Inbound("website", "visitor-order", "When are you open?")
	if err := svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := messages(t, api, conv)
	if len(msgs) != 7 {
		t.Fatalf("%d messages, want 7 (2 answered questions, the request, the hand-off line, the unanswered question)", len(msgs))
	}
	if last := msgs[6]; last["direction"] != "inbound" {
		t.Errorf("the message after the hand-off was answered: %v", last)
	}
	if line := msgs[5]; line["text"] != ai.HandOffLine || line["sender"].(map[string]any)["type"] != "ai" {
		t.Errorf("no hand-off line from the AI: %v", line)
	}
	c := api.Want(api.Do("GET", "/v1/conversations/"+conv, "test_all", nil), 200, "").Data()
	if c["mode"] != "queued_for_human" || c["assigned_agent_id"] != "usr_alice" {
		t.Errorf("after the hand-off: mode %v assigned %v, want queued_for_human and usr_alice", c["mode"], c["assigned_agent_id"])
	}
	var pending int
	if err := api.Store.DB.Get(&pending, `SELECT count(*) FROM ai_work WHERE done_at IS NULL`); err != nil || pending != 0 {
		t.Errorf("%d messages still pending (%v)", pending, err)
	}
}

// TestNoAnswerWithProcessingOff: an account whose processing is off starts
// conversations in External mode; the AI queues nothing for them.
func TestNoAnswerWithProcessingOff(t *testing.T) {
	api := resttest.New(t)
	if _, err := api.Store.DB.Exec(`UPDATE channel_accounts SET processing = false WHERE workspace_id = 'ws_main' AND channel = 'whatsapp'`); err != nil {
		t.Fatal(err)
	}
	conv := api.Inbound("whatsapp", "+15550009999", "When are you open?")["conversation"].(map[string]any)
	if conv["mode"] != "external" {
		t.Fatalf("mode %v, want external", conv["mode"])
	}
	var queued int
	if err := api.Store.DB.Get(&queued, `SELECT count(*) FROM ai_work WHERE conversation_id = $1`, conv["id"]); err != nil || queued != 0 {
		t.Errorf("%d AI work rows for an External conversation (%v)", queued, err)
	}
}
